package dev.distlock.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Scenarios A, B and C: lock+unlock on a fresh key each time, so nothing ever waits; the thread
 * count comes from the runner ({@code -t}). Also the read-lock scenario ({@link #readers}): all
 * threads take the read lock of one key, which readers share.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class UncontendedBenchmark {

    private static final long WAIT_MILLIS = 10_000;

    @Param({"raw", "distlock", "redisson", "spring-spin"})
    public String lib;

    private RedisAdmin admin;
    private LockLibrary library;
    private MeasurementWindow window;

    @Setup(Level.Trial)
    public void open(BenchmarkParams params) {
        int port = BenchmarkServer.port();
        admin = new RedisAdmin(BenchmarkServer.HOST, port);
        admin.command("FLUSHALL");
        library = LockLibrary.open(lib, BenchmarkServer.HOST, port);
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

    /** Per-thread key source: a unique prefix and a counter. */
    @State(Scope.Thread)
    public static class Keys {

        String prefix;
        long next;
        int index;

        @Setup(Level.Trial)
        public void init(ThreadParams params) {
            index = params.getThreadIndex();
            prefix = "bench:" + Long.toHexString(System.nanoTime()) + ":" + index + ":";
        }

        String fresh() {
            return prefix + next++;
        }
    }

    @Benchmark
    public void lockUnlock(Keys keys) throws InterruptedException {
        String key = keys.fresh();
        if (!library.lock(key, WAIT_MILLIS)) {
            throw new IllegalStateException(lib + " did not take uncontended lock '" + key + "'");
        }
        library.unlock(key);
        window.ops.increment();
    }

    @Benchmark
    public void readers(Keys keys) throws InterruptedException {
        if (!library.lock("bench:shared-read", WAIT_MILLIS)) {
            window.timeouts.increment();
            return;
        }
        library.unlock("bench:shared-read");
        window.ops.increment();
    }
}
