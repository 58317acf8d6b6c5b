package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A cross-check of the uncontended ratios that is robust to a machine whose load drifts: all
 * libraries live in one JVM and take turns in short rounds (in a rotating order), so each sees the
 * same load; the median round is reported. JMH runs the libraries one after another, minutes apart.
 */
final class Interleaved {

    private static final int WARMUP_ROUNDS = 1;
    private static final int ROUNDS = 5;
    private static final long ROUND_MILLIS = 800;

    private final int port;

    Interleaved(int port) {
        this.port = port;
    }

    /**
     * Runs fresh-key lock+unlock rounds.
     * @param threads threads per round
     * @param libs libraries
     * @return median ops/s per library
     */
    Map<String, Double> uncontended(int threads, List<String> libs) throws Exception {
        Map<String, LockLibrary> open = new LinkedHashMap<>();
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicLong keys = new AtomicLong();
        try (RedisAdmin admin = new RedisAdmin(BenchmarkServer.HOST, port)) {
            admin.command("FLUSHALL");
            for (String lib : libs) {
                open.put(lib, LockLibrary.open(lib, BenchmarkServer.HOST, port));
                rates.put(lib, new ArrayList<>());
            }
            for (int round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
                for (int i = 0; i < libs.size(); i++) {
                    String lib = libs.get((i + round) % libs.size());
                    LockLibrary library = open.get(lib);
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
                    if (round >= WARMUP_ROUNDS) {
                        rates.get(lib).add(ops * 1e9 / (System.nanoTime() - start));
                    }
                }
            }
        } finally {
            pool.shutdownNow();
            open.values().forEach(LockLibrary::close);
        }
        Map<String, Double> medians = new LinkedHashMap<>();
        rates.forEach((lib, values) -> {
            Collections.sort(values);
            medians.put(lib, values.get(values.size() / 2));
        });
        return medians;
    }
}
