package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * The body of a {@code CompletionStage} method never runs on, and never holds up, the Redis I/O
 * thread that delivered its grant, whatever the method executor does with the submitting thread:
 * here a one-thread pool without a queue whose {@code CallerRunsPolicy} runs a second body on the
 * thread that submitted it.
 */
class StageHandOffTests {

    static final RedisServer redis = RedisServers.shared();

    private ConfigurableApplicationContext context;

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
        context = new SpringApplicationBuilder(HandOffApp.class)
                .web(WebApplicationType.NONE)
                .properties("distlock.redis.url=" + redis.uri(), "distlock.defaults.wait-time=5s")
                .run();
    }

    @AfterEach
    void tearDown() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void whenTheExecutorRunsTheBodyOnTheSubmittingThreadThenItIsNeverARedisIoThread() throws Exception {
        BlockingWorker worker = context.getBean(BlockingWorker.class);
        LockClient client = context.getBean(LockClient.class);
        CountDownLatch finish = new CountDownLatch(1);
        try {
            // The first body takes the pool's only thread; the second is run by whoever submits it.
            CompletableFuture<String> first = worker.block("first", finish).toCompletableFuture();
            await().atMost(Duration.ofSeconds(10)).until(() -> worker.threads().size() == 1);
            CompletableFuture<String> second = worker.block("second", finish).toCompletableFuture();
            await().atMost(Duration.ofSeconds(10)).until(() -> worker.threads().size() == 2);

            // Both bodies block now; a lock nobody holds, on the same client, is still served at once.
            RedisLock unrelated = client.getLock("hand-off-unrelated");
            long started = System.nanoTime();
            boolean taken = unrelated.tryLock(0, 10_000, TimeUnit.MILLISECONDS, 4242L);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(taken).isTrue();
            unrelated.unlock(4242L);
            assertThat(tookMillis)
                    .as("tryLock of a free lock while a body blocks (ms); bodies ran on %s", worker.threads())
                    .isLessThan(1_000);

            finish.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
            assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("second");
            assertThat(worker.threads()).noneMatch(name -> name.startsWith("lettuce-"));
        } finally {
            finish.countDown();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class HandOffApp {

        @Bean
        BlockingWorker blockingWorker() {
            return new BlockingWorker();
        }

        /** One thread, no queue, and a refused task runs on the thread that submitted it. */
        @Bean
        ThreadPoolTaskExecutor applicationTaskExecutor() {
            ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
            executor.setCorePoolSize(1);
            executor.setMaxPoolSize(1);
            executor.setQueueCapacity(0);
            executor.setRejectedExecutionHandler(new ThreadPoolExecutor.CallerRunsPolicy());
            executor.setThreadNamePrefix("app-task-");
            return executor;
        }
    }

    static class BlockingWorker {

        final List<String> threads = new CopyOnWriteArrayList<>();

        // Read through a method: the fields of the proxy the tests get are not the bean's.
        public List<String> threads() {
            return List.copyOf(threads);
        }

        /** Blocks before returning its future, as a body that calls JDBC first would, for at most 3 s. */
        @DistributedLock(name = "hand-off", key = "#id")
        public CompletableFuture<String> block(String id, CountDownLatch finish) {
            threads.add(Thread.currentThread().getName());
            try {
                finish.await(3, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            return CompletableFuture.completedFuture(id);
        }
    }
}
