package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A lease lost while a {@code CompletableFuture} or {@code Mono} method runs, under each
 * {@code distlock.lease-lost-policy}. An explicit lease that runs out before the work ends is found at
 * the release; a lock deleted while the watchdog renews it is found by the next renewal.
 */
@ExtendWith(OutputCaptureExtension.class)
class AsyncLeaseLossTests {

    static final RedisServer redis = RedisServers.shared();

    private static final String LOST_WARNING = "Lease of lock 'async-lease' was lost";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockAspectAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + redis.uri(), "distlock.defaults.wait-time=0")
            .withBean(AsyncService.class);

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
    }

    @Test
    void whenExplicitLeaseRunsOutUnderLogPolicyThenFutureCompletesAndLossIsLogged(CapturedOutput output) {
        runner.withPropertyValues("distlock.lease-lost-policy=log").run(context -> {
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> result =
                    context.getBean(AsyncService.class).shortLeaseFuture(work);
            awaitLeaseRunOut(context);
            work.complete("done");
            assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done");
            await().atMost(Duration.ofSeconds(5)).until(() -> output.getOut().contains(LOST_WARNING));
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void whenExplicitLeaseRunsOutUnderThrowPolicyThenFutureFails() {
        runner.withPropertyValues("distlock.lease-lost-policy=throw").run(context -> {
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> result =
                    context.getBean(AsyncService.class).shortLeaseFuture(work);
            awaitLeaseRunOut(context);
            work.complete("done");
            assertThatExceptionOfType(ExecutionException.class)
                    .isThrownBy(() -> result.get(5, TimeUnit.SECONDS))
                    .withCauseInstanceOf(LockLeaseExpiredException.class)
                    .withMessageContaining("'async-lease'");
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void whenLockIsLostMidFutureUnderInterruptPolicyThenFutureIsCancelled() {
        runner.withPropertyValues("distlock.lease-lost-policy=interrupt", "distlock.watchdog.timeout=1s")
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    CompletableFuture<String> work = new CompletableFuture<>();
                    CompletableFuture<String> result =
                            context.getBean(AsyncService.class).watchdogFuture(work);
                    // The caller gets its future at once; the lock is taken without blocking it.
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> client.getLock("async-lease").isLocked());
                    forceUnlockElsewhere();
                    await().atMost(Duration.ofSeconds(5)).until(work::isCancelled);
                    assertThatExceptionOfType(CancellationException.class)
                            .isThrownBy(() -> result.get(5, TimeUnit.SECONDS));
                    assertThat(client.heldLocks()).isEmpty();
                });
    }

    @Test
    void whenExplicitLeaseRunsOutUnderLogPolicyThenMonoEmitsAndLossIsLogged(CapturedOutput output) {
        runner.withPropertyValues("distlock.lease-lost-policy=log").run(context -> {
            Sinks.One<String> work = Sinks.one();
            Mono<String> result = context.getBean(AsyncService.class).shortLeaseMono(work.asMono());
            CompletableFuture<String> outcome = result.toFuture();
            awaitLeaseRunOut(context);
            work.tryEmitValue("done");
            assertThat(outcome.get(5, TimeUnit.SECONDS)).isEqualTo("done");
            await().atMost(Duration.ofSeconds(5)).until(() -> output.getOut().contains(LOST_WARNING));
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void whenExplicitLeaseRunsOutUnderThrowPolicyThenMonoErrors() {
        runner.withPropertyValues("distlock.lease-lost-policy=throw").run(context -> {
            Sinks.One<String> work = Sinks.one();
            CompletableFuture<String> outcome = context.getBean(AsyncService.class)
                    .shortLeaseMono(work.asMono())
                    .toFuture();
            awaitLeaseRunOut(context);
            work.tryEmitValue("done");
            assertThatExceptionOfType(ExecutionException.class)
                    .isThrownBy(() -> outcome.get(5, TimeUnit.SECONDS))
                    .withCauseInstanceOf(LockLeaseExpiredException.class);
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void whenExplicitLeaseRunsOutUnderThrowPolicyThenEmptyMonoErrors() {
        runner.withPropertyValues("distlock.lease-lost-policy=throw").run(context -> {
            Sinks.Empty<Void> work = Sinks.empty();
            CompletableFuture<Void> outcome = context.getBean(AsyncService.class)
                    .shortLeaseEmptyMono(work.asMono())
                    .toFuture();
            awaitLeaseRunOut(context);
            work.tryEmitEmpty();
            assertThatExceptionOfType(ExecutionException.class)
                    .isThrownBy(() -> outcome.get(5, TimeUnit.SECONDS))
                    .withCauseInstanceOf(LockLeaseExpiredException.class);
        });
    }

    @Test
    void whenLockIsLostMidMonoUnderInterruptPolicyThenSubscriptionIsCancelledWithError() {
        runner.withPropertyValues("distlock.lease-lost-policy=interrupt", "distlock.watchdog.timeout=1s")
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    Sinks.One<String> work = Sinks.one();
                    boolean[] cancelled = new boolean[1];
                    CompletableFuture<String> outcome = context.getBean(AsyncService.class)
                            .watchdogMono(work.asMono().doOnCancel(() -> cancelled[0] = true))
                            .toFuture();
                    await().atMost(Duration.ofSeconds(5))
                            .until(() -> client.getLock("async-lease").isLocked());
                    forceUnlockElsewhere();
                    assertThatExceptionOfType(ExecutionException.class)
                            .isThrownBy(() -> outcome.get(5, TimeUnit.SECONDS))
                            .withCauseInstanceOf(LockLeaseExpiredException.class);
                    assertThat(cancelled[0])
                            .as("the method's publisher was cancelled")
                            .isTrue();
                    assertThat(client.heldLocks()).isEmpty();
                });
    }

    /** Deletes the lock from another client, as an operator or another instance would. */
    private static void forceUnlockElsewhere() {
        try (LockClient other = LockClient.create(redis.uri())) {
            assertThat(other.getLock("async-lease").forceUnlock()).isTrue();
        }
    }

    /**
     * Waits until the body runs (the lock is taken: a Mono takes it on subscription) and its 200 ms
     * lease has run out. Told by the body, not by polling the lock: on a busy machine a poll can miss
     * a 200 ms hold altogether.
     */
    private static void awaitLeaseRunOut(AssertableApplicationContext context) throws InterruptedException {
        LockClient client = context.getBean(LockClient.class);
        assertThat(context.getBean(AsyncService.class).entered().tryAcquire(60, TimeUnit.SECONDS))
                .as("the body ran")
                .isTrue();
        long seenLocked = System.nanoTime();
        // The starter times an explicit lease from the acquire reply, which may arrive a round trip
        // after Redis started it: wait until it has run out by that clock too (200 ms lease + margin).
        long runOut = seenLocked + TimeUnit.MILLISECONDS.toNanos(300);
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> !client.getLock("async-lease").isLocked() && System.nanoTime() - runOut >= 0);
    }

    static class AsyncService {

        /** A permit per body that ran with the 200 ms lease, once it holds the lock. */
        private final Semaphore entered = new Semaphore(0);

        /** @return the bodies that ran; a method, as the bean is a proxy whose own fields are unset */
        public Semaphore entered() {
            return entered;
        }

        @DistributedLock(name = "async-lease", leaseTime = "200ms")
        public CompletableFuture<String> shortLeaseFuture(CompletableFuture<String> work) {
            entered.release();
            return work;
        }

        @DistributedLock(name = "async-lease")
        public CompletableFuture<String> watchdogFuture(CompletableFuture<String> work) {
            return work;
        }

        @DistributedLock(name = "async-lease", leaseTime = "200ms")
        public Mono<String> shortLeaseMono(Mono<String> work) {
            return work.doOnSubscribe(subscription -> entered.release());
        }

        @DistributedLock(name = "async-lease", leaseTime = "200ms")
        public Mono<Void> shortLeaseEmptyMono(Mono<Void> work) {
            return work.doOnSubscribe(subscription -> entered.release());
        }

        @DistributedLock(name = "async-lease")
        public Mono<String> watchdogMono(Mono<String> work) {
            return work;
        }
    }
}
