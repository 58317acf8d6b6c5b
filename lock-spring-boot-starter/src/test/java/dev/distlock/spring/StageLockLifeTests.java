package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.task.AsyncTaskExecutor;

/**
 * A {@code CompletionStage} method holds its lock exactly while its work runs: a caller that cancels
 * its future once the body runs lets go of the result, not of the lock, and a method executor that
 * refuses the body releases the lock and fails the caller.
 */
class StageLockLifeTests {

    static final RedisServer redis = RedisServers.shared();

    private final ExecutorService work = Executors.newCachedThreadPool();

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
        work.shutdownNow();
    }

    @Test
    void whenTheCallerCancelsARunningBodyThenTheLockIsHeldUntilTheBodyEnds() throws Exception {
        context = start("distlock.defaults.wait-time=20s");
        StageWorker worker = context.getBean(StageWorker.class);
        CountDownLatch finishFirst = new CountDownLatch(1);
        CompletableFuture<String> first = worker.body(work, finishFirst).toCompletableFuture();
        await().atMost(Duration.ofSeconds(10)).until(() -> worker.entered() == 1);

        assertThat(first.cancel(true)).isTrue();
        CompletableFuture<String> second =
                worker.body(work, new CountDownLatch(0)).toCompletableFuture();
        // The first body still runs: the second must not start, and the lock stays in Redis.
        await("one body at a time, the lock held meanwhile")
                .during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(5))
                .until(() -> worker.entered() == 1 && "1".equals(redis.command("EXISTS", "stage-life")));

        finishFirst.countDown();
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("done");
        assertThat(worker.mostAtOnce()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> context.getBean(LockClient.class).heldLocks().isEmpty());
        assertThat(redis.command("EXISTS", "stage-life")).hasToString("0");
    }

    @Test
    void whenTheMethodExecutorRefusesTheBodyThenTheLockIsReleasedAndTheCallerFails() throws Exception {
        context = start(
                "distlock.defaults.wait-time=0",
                "spring.task.execution.pool.core-size=1",
                "spring.task.execution.pool.max-size=1",
                "spring.task.execution.pool.queue-capacity=0");
        StageWorker worker = context.getBean(StageWorker.class);
        AsyncTaskExecutor tasks = context.getBean("applicationTaskExecutor", AsyncTaskExecutor.class);
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch occupied = new CountDownLatch(1);
        tasks.execute(() -> {
            occupied.countDown();
            try {
                busy.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            assertThat(occupied.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<String> call =
                    worker.body(work, new CountDownLatch(0)).toCompletableFuture();
            assertThatExceptionOfType(ExecutionException.class)
                    .isThrownBy(() -> call.get(10, TimeUnit.SECONDS))
                    .withCauseInstanceOf(RejectedExecutionException.class)
                    .withMessageContaining("'stage-life'")
                    .withMessageContaining("the lock was released");
            assertThat(worker.entered()).isZero();
            assertThat(redis.command("EXISTS", "stage-life")).hasToString("0");
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
        } finally {
            busy.countDown();
        }
    }

    private static ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(StageApp.class)
                .web(WebApplicationType.NONE)
                .properties("distlock.redis.url=" + redis.uri())
                .properties(properties)
                .run();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class StageApp {

        @Bean
        StageWorker stageWorker() {
            return new StageWorker();
        }
    }

    static class StageWorker {

        final AtomicInteger entered = new AtomicInteger();
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger mostAtOnce = new AtomicInteger();

        // Read through methods: the fields of the proxy the tests get are not the bean's.
        public int entered() {
            return entered.get();
        }

        public int mostAtOnce() {
            return mostAtOnce.get();
        }

        /** Runs its work on another executor, as {@code supplyAsync} does, until {@code finish} opens. */
        @DistributedLock(name = "stage-life")
        public CompletableFuture<String> body(ExecutorService on, CountDownLatch finish) {
            return CompletableFuture.supplyAsync(
                    () -> {
                        entered.incrementAndGet();
                        mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                        try {
                            finish.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                        } finally {
                            running.decrementAndGet();
                        }
                        return "done";
                    },
                    on);
        }
    }
}
