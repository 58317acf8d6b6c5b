package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.scheduling.annotation.Scheduled;

/** Scheduled jobs: a startup warning when they wait for the lock, and a minimum hold across instances. */
@ExtendWith(OutputCaptureExtension.class)
class ScheduledJobLockTests {

    static final RedisServer redis = RedisServers.shared();

    private static final String WAIT_WARNING = "is @Scheduled and waits";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockAspectAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + redis.uri());

    private LockClient other;

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
        other = LockClient.create(redis.uri());
    }

    @AfterEach
    void tearDown() {
        other.close();
    }

    @Test
    void whenScheduledJobWaitsForItsLockThenStartupWarns(CapturedOutput output) {
        runner.withBean(WaitingJob.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output).contains(WAIT_WARNING).contains("WaitingJob.run");
        });
    }

    @Test
    void whenScheduledJobDoesNotWaitThenNoWarning(CapturedOutput output) {
        runner.withBean(FastJob.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output).doesNotContain(WAIT_WARNING);
        });
    }

    @Test
    void whenFastJobHasMinHoldTimeThenTheLockIsKeptThatLongAcrossInstances() {
        runner.withBean(FastJob.class)
                .run(first -> runner.withBean(FastJob.class).run(second -> {
                    FastJob a = first.getBean(FastJob.class);
                    FastJob b = second.getBean(FastJob.class);
                    long start = System.nanoTime();
                    a.run();
                    assertThat(a.runs()).hasValue(1);
                    // The method returned at once: the deferral is not a sleep.
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
                    b.run();
                    assertThat(b.runs())
                            .as("the second instance must not run the job within minHoldTime")
                            .hasValue(0);
                    assertThat(other.getLock("fast-job").tryLock(0, 10_000, TimeUnit.MILLISECONDS))
                            .isFalse();
                    await().atMost(Duration.ofSeconds(15))
                            .until(() -> !other.getLock("fast-job").isLocked());
                    assertThat(Duration.ofNanos(System.nanoTime() - start))
                            .isGreaterThanOrEqualTo(Duration.ofSeconds(4));
                    b.run();
                    assertThat(b.runs()).hasValue(1);
                }));
    }

    static class WaitingJob {

        @Scheduled(fixedDelay = 3_600_000, initialDelay = 3_600_000)
        @DistributedLock(name = "waiting-job")
        public void run() {}
    }

    static class FastJob {

        private final AtomicInteger runs = new AtomicInteger();

        @Scheduled(fixedDelay = 3_600_000, initialDelay = 3_600_000)
        @DistributedLock(name = "fast-job", waitTime = "0", minHoldTime = "4s", onFailure = OnFailure.SKIP)
        public void run() {
            runs.incrementAndGet();
        }

        public AtomicInteger runs() {
            return runs;
        }
    }
}
