package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockListener;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.task.AsyncTaskExecutor;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Every return type against every way its call can end: the lock is in Redis exactly while the body
 * runs (a caller's cancel or the shutdown does not end a {@code CompletionStage} body, so neither
 * releases its lock), and each hold taken is released exactly once; a call that never got the lock
 * releases nothing.
 */
class HoldLifeMatrixTests {

    static final RedisServer redis = RedisServers.shared();

    private static final String LOCK = "matrix";

    private final ExecutorService bodies = Executors.newCachedThreadPool();
    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    enum Kind {
        SYNC,
        STAGE,
        MONO
    }

    enum Ending {
        COMPLETES,
        FAILS,
        CANCELLED,
        REJECTED,
        TIMES_OUT,
        LEASE_LOST,
        SHUTDOWN
    }

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            for (Ending ending : Ending.values()) {
                // A blocking call cannot be cancelled; only an executor hand-off can be refused.
                if ((kind == Kind.SYNC && ending == Ending.CANCELLED)
                        || (kind != Kind.STAGE && ending == Ending.REJECTED)) {
                    continue;
                }
                cases.add(Arguments.of(kind, ending));
            }
        }
        return cases.stream();
    }

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
    }

    @AfterEach
    void tearDown() {
        contexts.forEach(ConfigurableApplicationContext::close);
        bodies.shutdownNow();
    }

    @ParameterizedTest(name = "{0} x {1}")
    @MethodSource("cases")
    void whenACallEndsThenTheLockWasHeldExactlyWhileItsBodyRanAndReleasedOnce(Kind kind, Ending ending)
            throws Exception {
        ConfigurableApplicationContext context = start(ending);
        Work work = context.getBean(Work.class);
        Releases releases = context.getBean(Releases.class);
        Gate gate = new Gate(ending == Ending.FAILS);
        switch (ending) {
            case TIMES_OUT -> {
                try (LockClient other = LockClient.create(redis.uri())) {
                    RedisLock held = other.getLock(LOCK);
                    assertThat(held.tryLock(0, 30_000, TimeUnit.MILLISECONDS)).isTrue();
                    CompletableFuture<Object> call = call(kind, work, gate);
                    await().atMost(Duration.ofSeconds(10)).until(call::isDone);
                    assertThat(call).isCompletedExceptionally();
                    held.forceUnlock();
                }
                assertThat(gate.entered).hasValue(0);
                assertThat(releases.count).as("releases").hasValue(0);
                return;
            }
            case REJECTED -> {
                CountDownLatch busy = occupy(context.getBean("applicationTaskExecutor", AsyncTaskExecutor.class));
                try {
                    CompletableFuture<Object> call = call(kind, work, gate);
                    await().atMost(Duration.ofSeconds(10)).until(call::isDone);
                    assertThat(call)
                            .failsWithin(Duration.ZERO)
                            .withThrowableThat()
                            .havingRootCause()
                            .isInstanceOf(RejectedExecutionException.class);
                } finally {
                    busy.countDown();
                }
                assertThat(gate.entered).hasValue(0);
                assertReleased(context, releases, 1);
                return;
            }
            default -> {}
        }
        CompletableFuture<Object> call = call(kind, work, gate);
        await().atMost(Duration.ofSeconds(10)).until(() -> gate.entered.get() == 1);
        assertThat(locked()).as("locked while the body runs").isTrue();
        CompletableFuture<Void> closing = null;
        switch (ending) {
            case CANCELLED -> {
                call.cancel(true);
                if (kind == Kind.STAGE) {
                    assertHeldWhileTheBodyRuns(gate);
                }
            }
            case LEASE_LOST -> {
                redis.command("DEL", LOCK);
                await().atMost(Duration.ofSeconds(10)).until(() -> releases.lost.get() == 1);
            }
            case SHUTDOWN -> {
                closing = CompletableFuture.runAsync(context::close);
                assertHeldWhileTheBodyRuns(gate);
            }
            default -> {}
        }
        gate.open.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> gate.running.get() == 0 && call.isDone());
        if (ending == Ending.COMPLETES || ending == Ending.LEASE_LOST || ending == Ending.SHUTDOWN) {
            assertThat(call).succeedsWithin(Duration.ZERO);
        } else if (ending == Ending.FAILS) {
            assertThat(call)
                    .failsWithin(Duration.ZERO)
                    .withThrowableThat()
                    .havingRootCause()
                    .withMessage("body failed");
        }
        if (closing != null) {
            closing.get(30, TimeUnit.SECONDS);
            assertThat(locked()).as("locked after the context closed").isFalse();
            assertThat(releases.count).as("releases").hasValue(1);
        } else {
            // A lease found lost leaves nothing to release: the client has dropped the hold.
            assertReleased(context, releases, ending == Ending.LEASE_LOST ? 0 : 1);
        }
        assertThat(gate.entered).as("bodies run").hasValue(1);
    }

    private static void assertHeldWhileTheBodyRuns(Gate gate) {
        // Held for a whole second on end; how soon that second starts is up to a busy machine.
        await("held while the body runs")
                .during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(30))
                .until(() -> gate.running.get() == 1 && locked());
    }

    private static void assertReleased(ConfigurableApplicationContext context, Releases releases, int times) {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> context.getBean(LockClient.class).heldLocks().isEmpty() && !locked());
        // A second release would come right after the first: give it the time to show.
        await("released " + times + " time(s), was " + releases.count.get())
                .during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(3))
                .until(() -> releases.count.get() == times);
    }

    private static boolean locked() {
        return "1".equals(redis.command("EXISTS", LOCK));
    }

    private CompletableFuture<Object> call(Kind kind, Work work, Gate gate) {
        return switch (kind) {
            case SYNC -> CompletableFuture.supplyAsync(() -> work.sync(gate), bodies);
            case STAGE -> work.stage(gate, bodies);
            case MONO -> {
                CompletableFuture<Object> out = new CompletableFuture<>();
                Disposable subscription = work.mono(gate).subscribe(out::complete, out::completeExceptionally);
                out.whenComplete((value, error) -> {
                    if (out.isCancelled()) {
                        subscription.dispose();
                    }
                });
                yield out;
            }
        };
    }

    private static CountDownLatch occupy(AsyncTaskExecutor tasks) throws InterruptedException {
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
        assertThat(occupied.await(10, TimeUnit.SECONDS)).isTrue();
        return busy;
    }

    private ConfigurableApplicationContext start(Ending ending) {
        List<String> properties = new ArrayList<>(List.of(
                "distlock.redis.url=" + redis.uri(),
                "distlock.defaults.wait-time=0",
                "distlock.watchdog.timeout=1s",
                "spring.lifecycle.timeout-per-shutdown-phase=20s"));
        if (ending == Ending.REJECTED) {
            properties.addAll(List.of(
                    "spring.task.execution.pool.core-size=1",
                    "spring.task.execution.pool.max-size=1",
                    "spring.task.execution.pool.queue-capacity=0"));
        }
        ConfigurableApplicationContext context = new SpringApplicationBuilder(MatrixApp.class)
                .web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new))
                .run();
        contexts.add(context);
        return context;
    }

    /** What a body waits for, and what it tells. */
    static final class Gate {

        final CountDownLatch open = new CountDownLatch(1);
        final AtomicInteger entered = new AtomicInteger();
        final AtomicInteger running = new AtomicInteger();
        final boolean fail;

        Gate(boolean fail) {
            this.fail = fail;
        }

        String pass() {
            entered.incrementAndGet();
            running.incrementAndGet();
            try {
                open.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            } finally {
                running.decrementAndGet();
            }
            if (fail) {
                throw new IllegalStateException("body failed");
            }
            return "done";
        }
    }

    /** Counts the releases of this context's client for the lock, and its lost leases. */
    static final class Releases implements LockListener {

        final AtomicInteger count = new AtomicInteger();
        final AtomicInteger lost = new AtomicInteger();

        @Override
        public void onReleasing(String lockName, long ownerId) {
            if (lockName.equals(LOCK)) {
                count.incrementAndGet();
            }
        }

        @Override
        public void onLeaseLost(String lockName, long ownerId) {
            if (lockName.equals(LOCK)) {
                lost.incrementAndGet();
            }
        }
    }

    static class Work {

        @DistributedLock(name = LOCK)
        public Object sync(Gate gate) {
            return gate.pass();
        }

        @DistributedLock(name = LOCK)
        public CompletableFuture<Object> stage(Gate gate, ExecutorService on) {
            return CompletableFuture.supplyAsync(gate::pass, on);
        }

        @DistributedLock(name = LOCK)
        public Mono<Object> mono(Gate gate) {
            return Mono.<Object>fromCallable(gate::pass).subscribeOn(Schedulers.boundedElastic());
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class MatrixApp {

        @Bean
        Work work() {
            return new Work();
        }

        @Bean
        Releases releases() {
            return new Releases();
        }
    }
}
