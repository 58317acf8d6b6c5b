package dev.distlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

/**
 * A cross-check of the uncontended ratios that is robust to a machine whose load drifts: all
 * libraries live in one JVM and take turns in short rounds (in a rotating order), so each sees the
 * same load; the median round is reported. JMH runs the libraries one after another, minutes apart.
 *
 * <p>Besides throughput, each round takes what one lock+unlock costs the client: the JVM's CPU time
 * ({@code OperatingSystemMXBean.getProcessCpuTime}), the bytes allocated by every live thread of the
 * JVM, the workers' and the client's I/O threads alike ({@code ThreadMXBean.getThreadAllocatedBytes}),
 * and the request bytes Redis read ({@code total_net_input_bytes}). Only one library runs at a time,
 * so each delta is that library's.
 */
final class Interleaved {

    private static final int WARMUP_ROUNDS = Integer.getInteger("distlock.bench.interleaved.warmup", 1);
    private static final int ROUNDS = Integer.getInteger("distlock.bench.interleaved.rounds", 5);
    private static final long ROUND_MILLIS = Long.getLong("distlock.bench.interleaved.millis", 800);

    /**
     * One library's medians over the measured rounds (each figure's own median).
     *
     * @param opsPerSecond lock+unlock operations per second
     * @param cpuMicrosPerOp the client JVM's CPU time per operation, microseconds
     * @param requestBytesPerOp bytes Redis read per operation
     * @param allocatedBytesPerOp bytes allocated in the client JVM per operation
     */
    record Sample(double opsPerSecond, double cpuMicrosPerOp, double requestBytesPerOp, double allocatedBytesPerOp) {}

    private final int port;

    Interleaved(int port) {
        this.port = port;
    }

    /** @return how the rounds were run, for the report */
    static String describe() {
        return "libraries taking turns in " + (ROUND_MILLIS / 1000.0) + " s rounds (rotating order), median of "
                + ROUNDS + " rounds after " + WARMUP_ROUNDS + " warmup round(s)";
    }

    /**
     * Runs fresh-key lock+unlock rounds.
     * @param threads threads per round
     * @param libs libraries
     * @return medians per library
     */
    Map<String, Sample> uncontended(int threads, List<String> libs) throws Exception {
        Map<String, LockLibrary> open = new LinkedHashMap<>();
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicLong keys = new AtomicLong();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (RedisAdmin admin = new RedisAdmin(BenchmarkServer.HOST, port)) {
            admin.command("FLUSHALL");
            for (String lib : libs) {
                open.put(lib, LockLibrary.open(lib, BenchmarkServer.HOST, port));
                samples.put(lib, new ArrayList<>());
            }
            for (int round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
                for (int i = 0; i < libs.size(); i++) {
                    String lib = libs.get((i + round) % libs.size());
                    LockLibrary library = open.get(lib);
                    long bytesBefore = admin.stats().netInputBytes();
                    Map<Long, Long> allocatedBefore = allocatedPerThread();
                    long cpuBefore = os.getProcessCpuTime();
                    long deadline = System.nanoTime() + ROUND_MILLIS * 1_000_000;
                    long start = System.nanoTime();
                    List<Future<Long>> workers = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        workers.add(pool.submit(() -> {
                            long ops = 0;
                            while (System.nanoTime() < deadline) {
                                String key = "bench:interleaved:" + keys.incrementAndGet();
                                if (!library.lock(key, 10_000)) {
                                    throw new IllegalStateException(lib + " did not take '" + key + "'");
                                }
                                library.unlock(key);
                                ops++;
                            }
                            return ops;
                        }));
                    }
                    long ops = 0;
                    for (Future<Long> worker : workers) {
                        ops += worker.get();
                    }
                    long elapsed = System.nanoTime() - start;
                    long cpu = os.getProcessCpuTime() - cpuBefore;
                    long allocated = allocatedSince(allocatedBefore);
                    long bytes = admin.stats().netInputBytes() - bytesBefore;
                    if (round >= WARMUP_ROUNDS) {
                        samples.get(lib)
                                .add(new Sample(
                                        ops * 1e9 / elapsed,
                                        cpu / 1000.0 / ops,
                                        (double) bytes / ops,
                                        (double) allocated / ops));
                    }
                }
            }
        } finally {
            pool.shutdownNow();
            open.values().forEach(LockLibrary::close);
        }
        Map<String, Sample> medians = new LinkedHashMap<>();
        samples.forEach((lib, values) -> medians.put(
                lib,
                new Sample(
                        median(values, Sample::opsPerSecond),
                        median(values, Sample::cpuMicrosPerOp),
                        median(values, Sample::requestBytesPerOp),
                        median(values, Sample::allocatedBytesPerOp))));
        return medians;
    }

    private static double median(List<Sample> values, ToDoubleFunction<Sample> figure) {
        List<Double> sorted = new ArrayList<>();
        values.forEach(v -> sorted.add(figure.applyAsDouble(v)));
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    private static Map<Long, Long> allocatedPerThread() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] ids = threads.getAllThreadIds();
        long[] bytes = threads.getThreadAllocatedBytes(ids);
        Map<Long, Long> perThread = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                perThread.put(ids[i], bytes[i]);
            }
        }
        return perThread;
    }

    /** Allocation by the threads alive now since the snapshot (a thread that ended since is not counted). */
    private static long allocatedSince(Map<Long, Long> before) {
        long total = 0;
        for (Map.Entry<Long, Long> now : allocatedPerThread().entrySet()) {
            total += now.getValue() - before.getOrDefault(now.getKey(), 0L);
        }
        return total;
    }
}
