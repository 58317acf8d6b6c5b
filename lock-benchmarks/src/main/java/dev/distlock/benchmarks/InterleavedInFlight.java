package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The cross-check of CA64, for the same reason as {@link Interleaved}: 64 operations in flight
 * from one caller thread (each async library) against 64 blocking threads (Distlock's blocking API),
 * all in one JVM, taking turns in short rounds in a rotating order, so that each sees the same load.
 * Reports the median round.
 */
final class InterleavedInFlight {

    static final String BLOCKING = "distlock";
    static final List<String> LIBS = List.of(BLOCKING, "distlock-async", "redisson-async");
    private static final int IN_FLIGHT = AsyncInFlightBenchmark.IN_FLIGHT;
    private static final int WARMUP_ROUNDS = 2;
    private static final int ROUNDS = 5;
    private static final long ROUND_MILLIS = 800;

    private final int port;
    private final AtomicLong keys = new AtomicLong();

    InterleavedInFlight(int port) {
        this.port = port;
    }

    /** @return median ops/s per library */
    Map<String, Double> run() throws Exception {
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(IN_FLIGHT);
        LockLibrary blocking = null;
        Map<String, AsyncLockLibrary> async = new LinkedHashMap<>();
        try (RedisAdmin admin = new RedisAdmin(BenchmarkServer.HOST, port)) {
            admin.command("FLUSHALL");
            blocking = LockLibrary.open(BLOCKING, BenchmarkServer.HOST, port);
            for (String lib : LIBS) {
                rates.put(lib, new ArrayList<>());
                if (!lib.equals(BLOCKING)) {
                    async.put(lib, AsyncLockLibrary.open(lib, BenchmarkServer.HOST, port));
                }
            }
            for (int round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
                for (int i = 0; i < LIBS.size(); i++) {
                    String lib = LIBS.get((i + round) % LIBS.size());
                    double rate = lib.equals(BLOCKING) ? blockingRound(blocking, pool) : asyncRound(async.get(lib));
                    if (round >= WARMUP_ROUNDS) {
                        rates.get(lib).add(rate);
                    }
                }
            }
        } finally {
            pool.shutdownNow();
            if (blocking != null) {
                blocking.close();
            }
            async.values().forEach(AsyncLockLibrary::close);
        }
        Map<String, Double> medians = new LinkedHashMap<>();
        rates.forEach((lib, values) -> {
            Collections.sort(values);
            medians.put(lib, values.get(values.size() / 2));
        });
        return medians;
    }

    private double blockingRound(LockLibrary library, ExecutorService pool) throws Exception {
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(ROUND_MILLIS);
        List<Future<Long>> workers = new ArrayList<>();
        for (int t = 0; t < IN_FLIGHT; t++) {
            workers.add(pool.submit(() -> {
                long ops = 0;
                while (System.nanoTime() < deadline) {
                    String key = "bench:inflight-x:" + keys.incrementAndGet();
                    if (!library.lock(key, 10_000)) {
                        throw new IllegalStateException(BLOCKING + " did not take '" + key + "'");
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
        return ops * 1e9 / (System.nanoTime() - start);
    }

    /** This thread starts the chains; each completion starts its chain's next operation until the deadline. */
    private double asyncRound(AsyncLockLibrary library) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(ROUND_MILLIS);
        AtomicLong ops = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch chains = new CountDownLatch(IN_FLIGHT);
        for (int i = 0; i < IN_FLIGHT; i++) {
            next(library, library.newOwner(), deadline, ops, failure, chains);
        }
        if (!chains.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("async lock+unlock chains still running 30 s after their round");
        }
        if (failure.get() != null) {
            throw new IllegalStateException("async lock+unlock failed", failure.get());
        }
        return ops.get() * 1e9 / (System.nanoTime() - start);
    }

    private void next(
            AsyncLockLibrary library,
            long owner,
            long deadline,
            AtomicLong ops,
            AtomicReference<Throwable> failure,
            CountDownLatch chains) {
        if (System.nanoTime() >= deadline || failure.get() != null) {
            chains.countDown();
            return;
        }
        String key = "bench:inflight-x:" + keys.incrementAndGet();
        library.tryLock(key, 10_000, owner)
                .thenCompose(acquired -> {
                    if (!acquired) {
                        throw new IllegalStateException("did not take uncontended lock '" + key + "'");
                    }
                    return library.unlock(key, owner);
                })
                .whenComplete((ignored, error) -> {
                    if (error != null) {
                        failure.compareAndSet(null, error);
                    } else {
                        ops.incrementAndGet();
                    }
                    next(library, owner, deadline, ops, failure, chains);
                });
    }
}
