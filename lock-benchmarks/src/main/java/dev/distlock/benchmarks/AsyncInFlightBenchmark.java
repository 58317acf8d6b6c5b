package dev.distlock.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;

/**
 * Scenario CA64: the async counterpart of C64. One caller thread keeps {@value #IN_FLIGHT}
 * lock+unlock operations in flight on distinct fresh keys: it starts {@value #IN_FLIGHT} chains, and
 * each chain's completion (on the library's threads) immediately starts its next operation, until
 * the invocation's {@value #BATCH} operations have been started. The caller then waits for the last
 * of them. The few operations at the end of a batch run with fewer than {@value #IN_FLIGHT} in flight,
 * which costs about {@value #IN_FLIGHT} / 2 operations' worth of concurrency per batch (under 1%).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class AsyncInFlightBenchmark {

    static final int IN_FLIGHT = 64;
    static final int BATCH = 4096;
    private static final long WAIT_MILLIS = 10_000;

    @Param({"distlock-async", "redisson-async"})
    public String lib;

    private RedisAdmin admin;
    private AsyncLockLibrary library;
    private MeasurementWindow window;
    private final long[] owners = new long[IN_FLIGHT];
    private final AtomicLong keys = new AtomicLong();
    private final String prefix = "bench:inflight:" + Long.toHexString(System.nanoTime()) + ":";

    @Setup(Level.Trial)
    public void open(BenchmarkParams params) {
        int port = BenchmarkServer.port();
        admin = new RedisAdmin(BenchmarkServer.HOST, port);
        admin.command("FLUSHALL");
        library = AsyncLockLibrary.open(lib, BenchmarkServer.HOST, port);
        for (int i = 0; i < IN_FLIGHT; i++) {
            owners[i] = library.newOwner();
        }
        window = new MeasurementWindow(admin, lib, 1, params.getThreads());
    }

    @Setup(Level.Iteration)
    public void iterationStarted(IterationParams params) {
        window.iterationStarted(params);
    }

    @TearDown(Level.Iteration)
    public void iterationEnded() {
        window.iterationEnded();
    }

    @TearDown(Level.Trial)
    public void close() {
        window.write();
        library.close();
        admin.close();
    }

    /** One invocation's operations: how many were started, how many are left to finish. */
    private static final class Batch {

        final AtomicInteger started = new AtomicInteger();
        final CountDownLatch finished = new CountDownLatch(BATCH);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void lockUnlockInFlight() throws InterruptedException {
        Batch batch = new Batch();
        for (long owner : owners) {
            next(batch, owner);
        }
        if (!batch.finished.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException(
                    lib + ": " + batch.finished.getCount() + " operations still in flight after 60 s");
        }
        Throwable failure = batch.failure.get();
        if (failure != null) {
            throw new IllegalStateException(lib + " failed an uncontended lock+unlock", failure);
        }
    }

    private void next(Batch batch, long owner) {
        if (batch.started.getAndIncrement() >= BATCH) {
            return;
        }
        String key = prefix + keys.incrementAndGet();
        library.tryLock(key, WAIT_MILLIS, owner)
                .thenCompose(acquired -> {
                    if (!acquired) {
                        throw new IllegalStateException(lib + " did not take uncontended lock '" + key + "'");
                    }
                    return library.unlock(key, owner);
                })
                .whenComplete((ignored, error) -> {
                    if (error != null) {
                        batch.failure.compareAndSet(null, error);
                    } else {
                        window.ops.increment();
                    }
                    batch.finished.countDown();
                    next(batch, owner);
                });
    }
}
