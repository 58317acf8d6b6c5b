package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Callers already waiting for a lock when the application begins to shut down: they are refused at
 * once with {@link LockShutdownException}, none of them takes the lock when its holder lets go, and
 * no lock is left in Redis once the context has closed.
 */
class ShutdownWhileWaitingTests {

    static final RedisServer redis = RedisServers.shared();

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
    }

    @Test
    void whenShutdownBeginsWhileCallersWaitThenTheyAreRefusedAtOnce() throws Exception {
        Scenario scenario = new Scenario();
        try {
            // Refused while the holder still runs, not when it lets go.
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> scenario.blockingWaiter.isDone() && scenario.stageWaiter.isDone());
            scenario.assertWaitersRefused();
        } finally {
            scenario.finish.countDown();
        }
        scenario.assertClosedWithOneBodyAndNoKey();
    }

    @Test
    void whenTheHolderEndsDuringShutdownThenNoWaiterTakesTheLockAndNoneIsLeftInRedis() throws Exception {
        Scenario scenario = new Scenario();
        await().pollDelay(Duration.ofSeconds(1)).until(() -> !scenario.closing.isDone());
        scenario.finish.countDown();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> scenario.blockingWaiter.isDone() && scenario.stageWaiter.isDone());
        scenario.assertWaitersRefused();
        scenario.assertClosedWithOneBodyAndNoKey();
    }

    /** One call holds the lock, a blocking and a {@code CompletionStage} call wait, then the context closes. */
    private static final class Scenario {

        final ConfigurableApplicationContext context = new SpringApplicationBuilder(WaitersApp.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "distlock.redis.url=" + redis.uri(),
                        "distlock.defaults.wait-time=30s",
                        "spring.lifecycle.timeout-per-shutdown-phase=20s")
                .run();
        final Waiters waiters = context.getBean(Waiters.class);
        final CountDownLatch finish = new CountDownLatch(1);
        final CompletableFuture<Void> holder;
        final CompletableFuture<Void> blockingWaiter;
        final CompletableFuture<String> stageWaiter;
        final CompletableFuture<Void> closing;
        // A thread per task: from JDK 25 on, the default async pool of a 2-core machine is a common pool
        // of one worker, which the holder's blocked body would keep from the waiter and the close.
        final ExecutorService threads = Executors.newCachedThreadPool();

        Scenario() {
            holder = CompletableFuture.runAsync(() -> waiters.blocking(finish), threads);
            await().atMost(Duration.ofSeconds(10)).until(() -> waiters.entered() == 1);
            blockingWaiter = CompletableFuture.runAsync(() -> waiters.blocking(finish), threads);
            stageWaiter = waiters.stage().toCompletableFuture();
            // Both calls are waiting on Redis by then (a wait is one round trip away).
            await().pollDelay(Duration.ofSeconds(1))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> !blockingWaiter.isDone() && !stageWaiter.isDone());
            closing = CompletableFuture.runAsync(context::close, threads);
        }

        void assertWaitersRefused() {
            assertThat(blockingWaiter)
                    .failsWithin(Duration.ZERO)
                    .withThrowableThat()
                    .havingRootCause()
                    .isInstanceOf(LockShutdownException.class);
            assertThat(stageWaiter)
                    .failsWithin(Duration.ZERO)
                    .withThrowableThat()
                    .havingRootCause()
                    .isInstanceOf(LockShutdownException.class);
        }

        void assertClosedWithOneBodyAndNoKey() throws Exception {
            holder.get(10, TimeUnit.SECONDS);
            closing.get(30, TimeUnit.SECONDS);
            assertThat(waiters.entered()).as("bodies run").isEqualTo(1);
            assertThat(redis.command("EXISTS", "shutdown-waiters")).hasToString("0");
            threads.shutdown();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class WaitersApp {

        @Bean
        Waiters waiters() {
            return new Waiters();
        }
    }

    static class Waiters {

        private final AtomicInteger entered = new AtomicInteger();

        public int entered() {
            return entered.get();
        }

        @DistributedLock(name = "shutdown-waiters")
        public void blocking(CountDownLatch finish) {
            entered.incrementAndGet();
            try {
                finish.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }

        @DistributedLock(name = "shutdown-waiters")
        public CompletionStage<String> stage() {
            entered.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }
    }
}
