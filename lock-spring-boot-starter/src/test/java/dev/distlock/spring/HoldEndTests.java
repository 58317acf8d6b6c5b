package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * How holds end once the method is past them: a hold kept by {@code minHoldTime} after its method
 * returned no longer belongs to the thread, so losing it interrupts nothing; {@code max-hold} ends
 * every level of a re-entered hold, not one.
 */
@ExtendWith(OutputCaptureExtension.class)
class HoldEndTests {

    static final RedisServer redis = RedisServers.shared();

    private ConfigurableApplicationContext context;

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
    }

    @AfterEach
    void tearDown() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void whenAHoldKeptByMinHoldTimeIsLostThenTheThreadThatRanTheMethodIsNotInterrupted(CapturedOutput output)
            throws Exception {
        context = start("distlock.lease-lost-policy=interrupt", "distlock.watchdog.timeout=1s");
        Locked locked = context.getBean(Locked.class);
        CountDownLatch unrelatedDone = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        CompletableFuture<Void> pooled = CompletableFuture.runAsync(() -> {
            locked.quick();
            // Unrelated work on the same thread while the minimum hold keeps the lock.
            try {
                unrelatedDone.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                interrupted.set(true);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> locked.returned());
        assertThat(redis.command("DEL", "deferred-hold")).hasToString("1");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> output.getOut().contains("Lease of lock 'deferred-hold' was lost"));
        unrelatedDone.countDown();
        pooled.get(10, TimeUnit.SECONDS);
        assertThat(interrupted).as("unrelated work interrupted").isFalse();
    }

    @Test
    void whenMaxHoldIsReachedByAReenteredHoldThenEveryLevelIsReleased(CapturedOutput output) throws Exception {
        context = start("distlock.watchdog.max-hold=4s");
        Locked locked = context.getBean(Locked.class);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> running = CompletableFuture.runAsync(() -> locked.outer(finish));
        try {
            // The outer hold reaches the cap 2 s before the nested one does; the method runs on.
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> output.getOut().contains("for longer than distlock.watchdog.max-hold"));
            await("the lock released at the outer hold's cap")
                    .atMost(Duration.ofSeconds(1))
                    .until(() -> "0".equals(redis.command("EXISTS", "nested-cap")));
        } finally {
            finish.countDown();
        }
        running.get(15, TimeUnit.SECONDS);
    }

    private static ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(HoldApp.class)
                .web(WebApplicationType.NONE)
                .properties("distlock.redis.url=" + redis.uri(), "distlock.defaults.wait-time=0")
                .properties(properties)
                .run();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class HoldApp {

        @Bean
        Nested nested() {
            return new Nested();
        }

        @Bean
        Locked locked(Nested nested) {
            return new Locked(nested);
        }
    }

    static class Locked {

        private final Nested nested;
        private volatile boolean returned;

        Locked(Nested nested) {
            this.nested = nested;
        }

        public boolean returned() {
            return returned;
        }

        @DistributedLock(name = "deferred-hold", minHoldTime = "8s")
        public void quick() {
            returned = true;
        }

        /** Re-enters its own lock 2 s in, then runs until told to finish. */
        @DistributedLock(name = "nested-cap")
        public void outer(CountDownLatch finish) {
            await().pollInSameThread().pollDelay(Duration.ofSeconds(2)).until(() -> true);
            nested.inner(finish);
        }
    }

    static class Nested {

        @DistributedLock(name = "nested-cap")
        public void inner(CountDownLatch finish) {
            try {
                finish.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
