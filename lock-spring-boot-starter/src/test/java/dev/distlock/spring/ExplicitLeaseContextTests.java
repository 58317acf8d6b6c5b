package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code LockContext.current().isHeld()} answers from an explicit lease's local deadline. */
class ExplicitLeaseContextTests {

    static final RedisServer redis = RedisServers.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockAspectAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + redis.uri())
            .withBean(ShortLease.class);

    static class ShortLease {

        @DistributedLock(name = "short-lease", leaseTime = "1s")
        public boolean[] run() {
            boolean atStart = LockContext.current().isHeld();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    // LockContext is the calling thread's.
                    .pollInSameThread()
                    .until(() -> !LockContext.current().isHeld());
            return new boolean[] {atStart, LockContext.current().isHeld()};
        }
    }

    @Test
    void whenAnAnnotatedMethodOutlivesItsExplicitLeaseThenItsContextIsNoLongerHeld() {
        runner.run(context -> {
            boolean[] held = context.getBean(ShortLease.class).run();
            assertThat(held[0]).as("held at the start").isTrue();
            assertThat(held[1]).as("held once the lease ran out").isFalse();
        });
    }

    @Test
    void whenATemplateCallbackOutlivesItsExplicitLeaseThenItsContextIsNoLongerHeld() {
        runner.run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            boolean atStart = template.execute(
                    "short-template-lease", LockOptions.DEFAULTS.withLeaseTime(Duration.ofSeconds(1)), () -> {
                        boolean held = LockContext.current().isHeld();
                        Awaitility.await()
                                .atMost(Duration.ofSeconds(30))
                                // LockContext is the calling thread's.
                                .pollInSameThread()
                                .until(() -> !LockContext.current().isHeld());
                        return held;
                    });
            assertThat(atStart).isTrue();
        });
    }

    @Test
    void whenAWatchdogHoldOutlivesTheWatchdogTimeoutThenItsContextIsStillHeld() {
        runner.withPropertyValues("distlock.watchdog.timeout=1s").run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            boolean held = template.execute("watchdog-lease", () -> {
                // Past the lease the watchdog keeps renewing: the hold stays valid.
                Awaitility.await()
                        .pollInSameThread()
                        .pollDelay(Duration.ofMillis(1500))
                        .until(() -> true);
                return LockContext.current().isHeld();
            });
            assertThat(held).isTrue();
        });
    }
}
