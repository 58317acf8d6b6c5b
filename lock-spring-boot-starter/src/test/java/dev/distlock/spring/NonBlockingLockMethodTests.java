package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Contended {@code Mono}, {@code Flux} and {@code CompletionStage} lock methods, and a {@code Mono}
 * semaphore method, with BlockHound
 * installed: acquisition, hand-off to the waiter and release block no non-blocking thread (Reactor's
 * parallel threads, and, through Netty's BlockHound integration, the Redis client's I/O threads).
 * Runs in the {@code blockhound-tests} Surefire execution, in a JVM of its own.
 */
@Tag("blockhound")
class NonBlockingLockMethodTests {

    /** Every blocking call BlockHound caught, on whatever thread: errors on I/O threads are only logged. */
    private static final List<String> blockingCalls = new CopyOnWriteArrayList<>();

    static final RedisServer redis = RedisServers.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockAspectAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + redis.uri(), "distlock.defaults.wait-time=20s")
            .withBean(NonBlockingService.class);

    @BeforeAll
    static void installBlockHound() {
        BlockHound.install(builder -> builder
                // Writing log lines to the console or a file is the appender's I/O, not the lock's;
                // the test logback configuration appends synchronously.
                .allowBlockingCallsInside("ch.qos.logback.core.OutputStreamAppender", "subAppend")
                // Lettuce guards its command queue with a short lock that a write can meet while the
                // connection activates or closes. That is Lettuce's own brief wait, not a lock call
                // blocking; an error thrown from inside it leaves the lock's writer count wrong, and every
                // later write then spins (seen once on JDK 25: a hung JVM instead of a failed test).
                .allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "incrementWriters")
                .allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "doExclusive")
                .blockingMethodCallback(method -> {
                    BlockingOperationError error = new BlockingOperationError(method);
                    // The stack says which code blocked; the error itself may be swallowed by an I/O thread.
                    java.io.StringWriter trace = new java.io.StringWriter();
                    error.printStackTrace(new java.io.PrintWriter(trace));
                    blockingCalls.add(method + " on " + Thread.currentThread().getName() + "\n" + trace);
                    throw error;
                }));
    }

    @BeforeEach
    void clear() {
        redis.command("FLUSHALL");
        blockingCalls.clear();
    }

    @AfterEach
    void noBlockingCall() {
        assertThat(blockingCalls).as("blocking calls on non-blocking threads").isEmpty();
    }

    @Test
    void shouldCatchABlockingCallOnAParallelThread() {
        // Proves BlockHound is installed and watching: otherwise every other test here proves nothing.
        assertThatExceptionOfType(RuntimeException.class)
                .isThrownBy(() -> Mono.fromCallable(() -> {
                            Thread.sleep(1);
                            return 1;
                        })
                        .subscribeOn(Schedulers.parallel())
                        .block(Duration.ofSeconds(5)))
                .withRootCauseInstanceOf(BlockingOperationError.class);
        assertThat(blockingCalls).isNotEmpty();
        blockingCalls.clear();
    }

    @Test
    void whenTwoSubscribersContendOnParallelThreadsThenTheSecondWaitsWithoutBlocking() {
        runner.run(context -> {
            NonBlockingService service = context.getBean(NonBlockingService.class);
            Mono<String> first = service.mono("a", Duration.ofMillis(300)).subscribeOn(Schedulers.parallel());
            Mono<String> second = service.mono("b", Duration.ofMillis(50)).subscribeOn(Schedulers.parallel());
            List<String> results = Flux.merge(first, second.delaySubscription(Duration.ofMillis(50)))
                    .collectList()
                    .block(Duration.ofSeconds(20));
            assertThat(results).containsExactly("a", "b");
            assertThat(service.maxConcurrent()).isEqualTo(1);
            assertThat(context.getBean(LockClient.class).getLock("nb-mono").isLocked())
                    .isFalse();
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void whenFluxSubscribersContendThenEachRunsAloneWithoutBlocking() {
        runner.run(context -> {
            NonBlockingService service = context.getBean(NonBlockingService.class);
            List<Long> values = Flux.merge(
                            service.flux().subscribeOn(Schedulers.parallel()),
                            service.flux().subscribeOn(Schedulers.parallel()),
                            service.flux().subscribeOn(Schedulers.parallel()))
                    .collectList()
                    .block(Duration.ofSeconds(20));
            assertThat(values).hasSize(9);
            assertThat(service.maxConcurrent()).isEqualTo(1);
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void whenCompletionStageCallersContendThenTheCallerNeverWaitsAndTheLockIsHeldUntilCompletion() {
        runner.run(context -> {
            NonBlockingService service = context.getBean(NonBlockingService.class);
            // Called from parallel threads: neither the call nor the hand-off may block them.
            List<String> results = Flux.range(0, 3)
                    .flatMap(i -> Mono.fromCompletionStage(() -> service.stage("s" + i))
                            .subscribeOn(Schedulers.parallel()))
                    .collectList()
                    .block(Duration.ofSeconds(20));
            assertThat(results).containsExactlyInAnyOrder("s0", "s1", "s2");
            assertThat(service.maxConcurrent()).isEqualTo(1);
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void whenMonoCallersContendForPermitsThenAtMostThePermitsRunAndNoneBlocks() {
        runner.run(context -> {
            NonBlockingService service = context.getBean(NonBlockingService.class);
            List<String> results = Flux.range(0, 6)
                    .flatMap(i -> service.permitted("p" + i).subscribeOn(Schedulers.parallel()))
                    .collectList()
                    .block(Duration.ofSeconds(30));
            assertThat(results).containsExactlyInAnyOrder("p0", "p1", "p2", "p3", "p4", "p5");
            assertThat(service.maxConcurrent()).isBetween(1, 2);
            assertThat(context.getBean(LockClient.class)
                            .getSemaphore("nb-permits")
                            .availablePermits())
                    .as("every permit given back")
                    .isEqualTo(2);
        });
    }

    static class NonBlockingService {

        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger maxConcurrent = new AtomicInteger();

        /** @return the most lock-method calls that ever ran at once */
        public int maxConcurrent() {
            return maxConcurrent.get();
        }

        private void enter() {
            maxConcurrent.accumulateAndGet(running.incrementAndGet(), Math::max);
        }

        @DistributedLock(name = "nb-mono")
        public Mono<String> mono(String value, Duration work) {
            return Mono.fromRunnable(this::enter)
                    .then(Mono.delay(work))
                    .thenReturn(value)
                    // Before the terminal signal travels on: the lock is released as it arrives downstream, and
                    // the next holder may start before a doFinally here would run.
                    .doOnTerminate(running::decrementAndGet)
                    .doOnCancel(running::decrementAndGet);
        }

        @DistributedLock(name = "nb-flux")
        public Flux<Long> flux() {
            return Flux.interval(Duration.ofMillis(20))
                    .take(3)
                    .doOnSubscribe(s -> enter())
                    // Before the terminal signal travels on: the lock is released as it arrives downstream, and
                    // the next holder may start before a doFinally here would run.
                    .doOnTerminate(running::decrementAndGet)
                    .doOnCancel(running::decrementAndGet);
        }

        @DistributedSemaphore(name = "nb-permits", permits = 2)
        public Mono<String> permitted(String value) {
            return Mono.fromRunnable(this::enter)
                    .then(Mono.delay(Duration.ofMillis(150)))
                    .thenReturn(value)
                    .doOnTerminate(running::decrementAndGet)
                    .doOnCancel(running::decrementAndGet);
        }

        @DistributedLock(name = "nb-stage")
        public CompletionStage<String> stage(String value) {
            enter();
            return CompletableFuture.supplyAsync(
                            () -> value, CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS))
                    .whenComplete((v, e) -> running.decrementAndGet());
        }
    }
}
