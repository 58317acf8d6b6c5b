package dev.distlock.samples;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * Runs demo workers on their own threads, each released at the same moment (or staggered), and
 * collects their results in worker order.
 */
public final class Concurrently {

    private Concurrently() {}

    /**
     * Runs {@code count} workers at once.
     * @param count how many workers
     * @param worker the work of worker {@code i}
     * @param <T> result type
     * @return results, indexed by worker
     */
    public static <T> List<T> run(int count, IntFunction<T> worker) {
        return run(count, Duration.ZERO, worker);
    }

    /**
     * Runs {@code count} workers, worker {@code i} starting {@code i * stagger} after the first.
     * @param count how many workers
     * @param stagger delay between two starts
     * @param worker the work of worker {@code i}
     * @param <T> result type
     * @return results, indexed by worker
     */
    public static <T> List<T> run(int count, Duration stagger, IntFunction<T> worker) {
        if (count < 1 || count > 64) {
            throw new IllegalArgumentException("'count' must be between 1 and 64, was " + count);
        }
        ExecutorService pool = Executors.newFixedThreadPool(count);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int index = i;
                futures.add(pool.submit(() -> {
                    start.await();
                    Pause.of(stagger.multipliedBy(index));
                    return worker.apply(index);
                }));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get());
            }
            return results;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the workers", ex);
        } catch (ExecutionException ex) {
            if (ex.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(ex.getCause());
        } finally {
            pool.shutdownNow();
        }
    }
}
