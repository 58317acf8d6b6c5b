package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
 * Closing the application while a locked method runs: the lock stays held (renewed) until the method
 * ends, and new acquisitions are refused with a clear exception meanwhile.
 */
@ExtendWith(OutputCaptureExtension.class)
class GracefulShutdownTests {

    static final RedisServer redis = RedisServers.shared();

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
    void whenContextClosesWhileLockedMethodRunsThenLockIsKeptUntilItEndsAndNewCallsAreRefused() throws Exception {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(ShutdownApp.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "distlock.redis.url=" + redis.uri(),
                        "distlock.watchdog.timeout=1s",
                        "distlock.defaults.wait-time=0",
                        "spring.lifecycle.timeout-per-shutdown-phase=30s")
                .run();
        Worker worker = context.getBean(Worker.class);
        CompletableFuture<Void> running = new CompletableFuture<>();
        Thread workThread = new Thread(
                () -> {
                    try {
                        worker.work();
                        running.complete(null);
                    } catch (Throwable ex) {
                        running.completeExceptionally(ex);
                    }
                },
                "locked-work");
        workThread.start();
        CompletableFuture<Void> closing = null;
        try {
            assertThat(worker.entered().await(10, TimeUnit.SECONDS)).isTrue();
            closing = CompletableFuture.runAsync(context::close);
            AtomicReference<Throwable> refused = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                try {
                    worker.quick();
                    return false;
                } catch (RuntimeException ex) {
                    refused.set(ex);
                    return true;
                }
            });
            assertThat(refused.get())
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining("shutting down");
            // Three watchdog leases: without renewal the key would have expired and another client would get it.
            await().during(Duration.ofSeconds(3))
                    .atMost(Duration.ofSeconds(6))
                    .until(() -> !other.getLock("shutdown-work").tryLock(0, 10_000, TimeUnit.MILLISECONDS));
            assertThat(closing).isNotDone();
        } finally {
            worker.finish().countDown();
        }
        running.get(10, TimeUnit.SECONDS);
        closing.get(20, TimeUnit.SECONDS);
        assertThat(redis.command("EXISTS", "shutdown-work")).hasToString("0");
    }

    @Test
    void whenLockedMethodOutlivesTheShutdownPhaseThenItsLockIsReleasedAndReportedLost(CapturedOutput output)
            throws Exception {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(ShutdownApp.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "distlock.redis.url=" + redis.uri(),
                        "distlock.defaults.wait-time=0",
                        "spring.lifecycle.timeout-per-shutdown-phase=3s")
                .run();
        Worker worker = context.getBean(Worker.class);
        Thread workThread = new Thread(
                () -> {
                    try {
                        worker.work();
                    } catch (Throwable ex) {
                        // the outcome is checked through Redis and the log
                    }
                },
                "locked-work");
        workThread.start();
        try {
            assertThat(worker.entered().await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture.runAsync(context::close).get(20, TimeUnit.SECONDS);
            assertThat(redis.command("EXISTS", "shutdown-work")).hasToString("0");
            assertThat(output).contains("still held after").contains("Lease of lock 'shutdown-work' was lost");
        } finally {
            worker.finish().countDown();
            workThread.join(10_000);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ShutdownApp {

        @Bean
        Worker worker() {
            return new Worker();
        }
    }

    static class Worker {

        final CountDownLatch entered = new CountDownLatch(1);

        final CountDownLatch finish = new CountDownLatch(1);

        public CountDownLatch entered() {
            return entered;
        }

        public CountDownLatch finish() {
            return finish;
        }

        @DistributedLock(name = "shutdown-work")
        public void work() throws InterruptedException {
            entered.countDown();
            finish.await(60, TimeUnit.SECONDS);
        }

        @DistributedLock(name = "shutdown-quick")
        public void quick() {}
    }
}
