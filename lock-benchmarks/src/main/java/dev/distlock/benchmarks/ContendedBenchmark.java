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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Scenario D (and the fair-lock hand-off): 8 threads take one key with a tiny critical section,
 * sharing one client ({@code clients=1}) or each with its own ({@code clients=8}). Besides
 * throughput it records the hand-off latency, from the holder's unlock call to the next holder's
 * return from lock, and how evenly the threads got the lock.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(8)
public class ContendedBenchmark {

    private static final String KEY = "bench:contended";
    private static final long WAIT_MILLIS = 10_000;

    @Param({"distlock", "redisson", "spring-spin", "spring-pubsub"})
    public String lib;

    @Param({"1", "8"})
    public int clients;

    private RedisAdmin admin;
    private LockLibrary[] libraries;
    private MeasurementWindow window;
    /** nanoTime of the last unlock call; 0 at the start of an iteration (no previous holder). */
    private volatile long releasedAt;

    @Setup(Level.Trial)
    public void open(BenchmarkParams params) {
        int port = BenchmarkServer.port();
        admin = new RedisAdmin(BenchmarkServer.HOST, port);
        admin.command("FLUSHALL");
        libraries = new LockLibrary[clients];
        for (int i = 0; i < clients; i++) {
            libraries[i] = LockLibrary.open(lib, BenchmarkServer.HOST, port);
        }
        window = new MeasurementWindow(admin, lib, clients, params.getThreads());
    }

    @Setup(Level.Iteration)
    public void iterationStarted(IterationParams params) {
        releasedAt = 0;
        window.iterationStarted(params);
    }

    @TearDown(Level.Iteration)
    public void iterationEnded() {
        window.iterationEnded();
    }

    @TearDown(Level.Trial)
    public void close() {
        window.write();
        for (LockLibrary library : libraries) {
            library.close();
        }
        admin.close();
    }

    /** The client a thread uses. */
    @State(Scope.Thread)
    public static class Contender {

        int index;
        LockLibrary library;

        @Setup(Level.Trial)
        public void init(ContendedBenchmark bench, ThreadParams params) {
            index = params.getThreadIndex();
            library = bench.libraries[index % bench.clients];
        }
    }

    @Benchmark
    public void handOff(Contender contender) throws InterruptedException {
        if (!contender.library.lock(KEY, WAIT_MILLIS)) {
            window.timeouts.increment();
            return;
        }
        long acquiredAt = System.nanoTime();
        long previous = releasedAt;
        window.acquired(contender.index, previous == 0 ? -1 : acquiredAt - previous);
        Blackhole.consumeCPU(64);
        releasedAt = System.nanoTime();
        contender.library.unlock(KEY);
        window.ops.increment();
    }
}
