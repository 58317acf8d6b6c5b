package dev.distlock.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
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
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Scenario S: the threads of one client take a permit of one semaphore of {@link #PERMITS} permits,
 * run a section and give the permit back. With one thread (S1, {@link #acquireRelease}) the section
 * is tiny and nothing ever waits. With 16 threads (S16, {@link #contended}) the section is a
 * {@link #SECTION_MICROS} µs pause, long enough beside a round trip that the permits run out and
 * callers wait for one to be given back (with a tiny section a permit comes back before the next
 * caller asks, and nobody waits). Besides throughput it records the acquire latency (from the
 * acquire call to its return with a permit), how evenly the threads got permits, and the most
 * permits held at once as this process saw them, which must never exceed {@link #PERMITS}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SemaphoreBenchmark {

    /** Permits of the semaphore. */
    static final int PERMITS = 4;

    /** The contended section: a pause that leaves the CPU to the others. */
    static final long SECTION_MICROS = 500;

    private static final String NAME = "bench:semaphore";
    private static final long WAIT_MILLIS = 10_000;

    @Param({"distlock", "redisson"})
    public String lib;

    private RedisAdmin admin;
    private SemaphoreLibrary library;
    private MeasurementWindow window;
    private final AtomicInteger holders = new AtomicInteger();
    private final AtomicInteger mostHolders = new AtomicInteger();

    @Setup(Level.Trial)
    public void open(BenchmarkParams params) {
        int port = BenchmarkServer.port();
        admin = new RedisAdmin(BenchmarkServer.HOST, port);
        admin.command("FLUSHALL");
        library = SemaphoreLibrary.open(lib, BenchmarkServer.HOST, port, NAME);
        library.trySetPermits(PERMITS);
        window = new MeasurementWindow(admin, lib, 1, params.getThreads());
    }

    @Setup(Level.Iteration)
    public void iterationStarted(IterationParams params) {
        mostHolders.set(0);
        window.iterationStarted(params);
    }

    @TearDown(Level.Iteration)
    public void iterationEnded() {
        window.maximum("holders.max", mostHolders.get());
        window.iterationEnded();
    }

    @TearDown(Level.Trial)
    public void close() {
        window.write();
        library.close();
        admin.close();
    }

    /** A thread's index, for the per-thread counts. */
    @State(Scope.Thread)
    public static class Contender {

        int index;

        @Setup(Level.Trial)
        public void init(ThreadParams params) {
            index = params.getThreadIndex();
        }
    }

    @Benchmark
    public void acquireRelease(Contender contender) throws InterruptedException {
        withPermit(contender, () -> Blackhole.consumeCPU(64));
    }

    @Benchmark
    public void contended(Contender contender) throws InterruptedException {
        withPermit(contender, () -> LockSupport.parkNanos(SECTION_MICROS * 1_000));
    }

    private void withPermit(Contender contender, Runnable section) throws InterruptedException {
        long calledAt = System.nanoTime();
        String permit = library.acquire(WAIT_MILLIS);
        if (permit == null) {
            window.timeouts.increment();
            return;
        }
        window.permitTaken(contender.index, System.nanoTime() - calledAt);
        mostHolders.accumulateAndGet(holders.incrementAndGet(), Math::max);
        section.run();
        // Counted out before the release call: the count here never exceeds the permits Redis has out.
        holders.decrementAndGet();
        library.release(permit);
        window.ops.increment();
    }
}
