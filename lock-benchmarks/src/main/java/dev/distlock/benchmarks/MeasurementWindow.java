package dev.distlock.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * What a benchmark fork measures besides JMH's throughput, over its measurement iterations only:
 * Redis calls and bytes ({@code INFO} deltas), operations, hand-off or acquire latencies and
 * per-thread acquisitions. Written at the end of the trial as a properties file the runner reads.
 */
final class MeasurementWindow {

    static final String OUT_PROPERTY = "distlock.bench.out";
    static final String SCENARIO_PROPERTY = "distlock.bench.scenario";
    private static final int MAX_THREADS = 256;

    final LongAdder ops = new LongAdder();
    final LongAdder timeouts = new LongAdder();
    private final AtomicLongArray perThread = new AtomicLongArray(MAX_THREADS);
    private final RedisAdmin admin;
    private final String name;
    private volatile boolean measuring;
    private RedisStats before;
    private final Map<String, Long> calls = new TreeMap<>();
    private long scriptCalls;
    private long inBytes;
    private long outBytes;
    private long cpuMicros;
    private long measuredOps;
    private long measuredTimeouts;
    private long[] handOffs = new long[1 << 14];
    private int handOffCount;
    private long[] acquires = new long[1 << 14];
    private int acquireCount;
    private final Map<String, Long> extras = new TreeMap<>();

    private final int threads;

    MeasurementWindow(RedisAdmin admin, String lib, int clients, int threads) {
        this.admin = admin;
        this.threads = Math.min(threads, MAX_THREADS);
        this.name = System.getProperty(SCENARIO_PROPERTY, "adhoc") + "__" + lib + "__" + clients;
    }

    /** @return whether the current iteration is a measurement iteration */
    boolean measuring() {
        return measuring;
    }

    void iterationStarted(IterationParams params) {
        ops.reset();
        timeouts.reset();
        measuring = params.getType() == IterationType.MEASUREMENT;
        if (measuring) {
            before = admin.stats();
        }
    }

    void iterationEnded() {
        if (!measuring) {
            return;
        }
        measuring = false;
        RedisStats delta = admin.stats().minus(before);
        delta.calls().forEach((command, n) -> calls.merge(command, n, Long::sum));
        scriptCalls += delta.scriptCalls();
        inBytes += delta.netInputBytes();
        outBytes += delta.netOutputBytes();
        cpuMicros += delta.cpuMicros();
        measuredOps += ops.sum();
        measuredTimeouts += timeouts.sum();
    }

    /**
     * Records that a thread took the lock; only the holder calls this, so no two calls overlap.
     * @param threadIndex JMH thread index
     * @param handOffNanos time since the previous holder called unlock, or -1 if unknown
     */
    synchronized void acquired(int threadIndex, long handOffNanos) {
        if (!measuring) {
            return;
        }
        perThread.incrementAndGet(threadIndex % MAX_THREADS);
        if (handOffNanos >= 0) {
            if (handOffCount == handOffs.length) {
                handOffs = Arrays.copyOf(handOffs, handOffs.length * 2);
            }
            handOffs[handOffCount++] = handOffNanos;
        }
    }

    /**
     * Records that a thread took a semaphore permit; several holders may call this at once.
     * @param threadIndex JMH thread index
     * @param acquireNanos time from the acquire call to its return with the permit
     */
    synchronized void permitTaken(int threadIndex, long acquireNanos) {
        if (!measuring) {
            return;
        }
        perThread.incrementAndGet(threadIndex % MAX_THREADS);
        if (acquireCount == acquires.length) {
            acquires = Arrays.copyOf(acquires, acquires.length * 2);
        }
        acquires[acquireCount++] = acquireNanos;
    }

    /**
     * Records a scenario's own figure over the measurement iterations, keeping the largest value.
     * @param key property name
     * @param value this iteration's value
     */
    synchronized void maximum(String key, long value) {
        if (measuring) {
            extras.merge(key, value, Math::max);
        }
    }

    /**
     * Records a scenario's own figure over the measurement iterations, adding up the values.
     * @param key property name
     * @param value this iteration's value
     */
    synchronized void total(String key, long value) {
        if (measuring) {
            extras.merge(key, value, Long::sum);
        }
    }

    /**
     * Records a figure of the trial's first invocation, warmup included: what a cold client costs.
     * @param key property name
     * @param value the value, kept only if none was recorded yet
     */
    synchronized void first(String key, long value) {
        extras.putIfAbsent(key, value);
    }

    void write() {
        Properties p = new Properties();
        extras.forEach((key, value) -> p.setProperty(key, Long.toString(value)));
        p.setProperty("ops", Long.toString(measuredOps));
        p.setProperty("timeouts", Long.toString(measuredTimeouts));
        p.setProperty(
                "calls",
                Long.toString(calls.entrySet().stream()
                        .filter(e -> !e.getKey().equals("info") && !e.getKey().equals("flushall"))
                        .mapToLong(Map.Entry::getValue)
                        .sum()));
        p.setProperty("calls.breakdown", calls.toString());
        p.setProperty("scripts", Long.toString(scriptCalls));
        p.setProperty("bytes.in", Long.toString(inBytes));
        p.setProperty("bytes.out", Long.toString(outBytes));
        p.setProperty("redis.cpu.us", Long.toString(cpuMicros));
        if (handOffCount > 0) {
            long[] sorted = Arrays.copyOf(handOffs, handOffCount);
            Arrays.sort(sorted);
            p.setProperty("handoff.count", Integer.toString(handOffCount));
            p.setProperty("handoff.p50.us", Long.toString(percentile(sorted, 0.50) / 1000));
            p.setProperty("handoff.p99.us", Long.toString(percentile(sorted, 0.99) / 1000));
        }
        if (acquireCount > 0) {
            long[] sorted = Arrays.copyOf(acquires, acquireCount);
            Arrays.sort(sorted);
            p.setProperty("acquire.count", Integer.toString(acquireCount));
            p.setProperty("acquire.p50.us", Long.toString(percentile(sorted, 0.50) / 1000));
            p.setProperty("acquire.p99.us", Long.toString(percentile(sorted, 0.99) / 1000));
        }
        long sum = 0;
        double squares = 0;
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < threads; i++) {
            long n = perThread.get(i);
            sum += n;
            squares += (double) n * n;
            min = Math.min(min, n);
            max = Math.max(max, n);
        }
        if (sum > 0) {
            // Jain's index over all threads: 1.0 when all got the same share, 1/n when one got all.
            p.setProperty("fairness.threads", Integer.toString(threads));
            p.setProperty("fairness.jain", String.format("%.3f", (double) sum * sum / (threads * squares)));
            p.setProperty("fairness.min", Long.toString(min));
            p.setProperty("fairness.max", Long.toString(max));
        }
        Path dir = Path.of(System.getProperty(OUT_PROPERTY, "target/bench-metrics"));
        try {
            Files.createDirectories(dir);
            try (Writer out = Files.newBufferedWriter(dir.resolve(name + ".properties"))) {
                p.store(out, name);
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static long percentile(long[] sorted, double q) {
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
