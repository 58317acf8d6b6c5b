package dev.distlock.core.test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Waits for work to finish for as long as it makes progress. A test that checks exclusion or order
 * over a fixed amount of work must not fail because a busy machine does that work slowly: it fails
 * only when the work stops moving (a hang, a deadlock, a lost wake-up), named by how long it stood still.
 */
public final class Progress {

    private static final long POLL_MILLIS = 200;

    private Progress() {}

    /**
     * Waits until {@code work} completes, failing only when {@code progress} stays unchanged for {@code stall}.
     * @param what what the work is, for the failure message
     * @param work the work's future
     * @param progress a count that grows while the work moves (sections done, entries written)
     * @param stall how long the count may stand still
     * @param <T> result type
     * @return the work's result
     * @throws ExecutionException when the work failed
     * @throws InterruptedException when interrupted
     */
    public static <T> T await(String what, Future<T> work, LongSupplier progress, Duration stall)
            throws ExecutionException, InterruptedException {
        long last = progress.getAsLong();
        long movedAt = System.nanoTime();
        while (true) {
            try {
                return work.get(POLL_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException stillRunning) {
                long now = progress.getAsLong();
                if (now != last) {
                    last = now;
                    movedAt = System.nanoTime();
                } else if (System.nanoTime() - movedAt > stall.toNanos()) {
                    throw new AssertionError(
                            what + " made no progress for " + stall.toSeconds() + " s (stuck at " + now + ")");
                }
            }
        }
    }

    /**
     * Waits until every future completes, failing only when none completes for {@code stall}.
     * @param what what the work is, for the failure message
     * @param futures the futures
     * @param stall how long no future may complete
     * @throws ExecutionException when one failed
     * @throws InterruptedException when interrupted
     */
    public static void awaitAll(String what, java.util.List<? extends CompletableFuture<?>> futures, Duration stall)
            throws ExecutionException, InterruptedException {
        await(
                what,
                CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)),
                () -> futures.stream().filter(CompletableFuture::isDone).count(),
                stall);
    }
}
