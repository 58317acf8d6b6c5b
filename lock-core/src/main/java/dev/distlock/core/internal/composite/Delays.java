package dev.distlock.core.internal.composite;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The one timer thread of all composite acquisitions: it ends a round that waited long enough and
 * a back-off pause, and runs the checks of the red locks' watchdog holds. Whatever runs on it (the next round's member calls) only starts calls and
 * returns, so one thread serves any number of waiting acquisitions.
 */
final class Delays {

    private static final ScheduledThreadPoolExecutor TIMER = newTimer();

    private Delays() {}

    private static ScheduledThreadPoolExecutor newTimer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "distlock-composite-timer");
            thread.setDaemon(true);
            return thread;
        });
        // A cancelled acquisition's pending pause should not linger in the queue until it is due.
        timer.setRemoveOnCancelPolicy(true);
        // The thread ends 5 s after the last composite call, so a process that stopped using
        // composite locks (or closed its clients) keeps no thread of ours; a later delay starts it again.
        timer.setKeepAliveTime(5, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
        return timer;
    }

    /**
     * Returns a future completed after the given time on the timer thread. Cancelling it removes
     * the timer.
     * @param millis delay in ms; {@code 0} or less completes it at once
     * @return the future
     */
    static CompletableFuture<Void> after(long millis) {
        if (millis <= 0) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> due = new CompletableFuture<>();
        ScheduledFuture<?> task = TIMER.schedule(() -> due.complete(null), millis, TimeUnit.MILLISECONDS);
        due.whenComplete((ok, failure) -> task.cancel(false));
        return due;
    }

    /**
     * Runs a step on the timer thread: a step that starts member calls or tells listeners, off the
     * connection's I/O thread whose reply completed the stage before it.
     * @param step what to run; it must only start calls and return
     */
    static void execute(Runnable step) {
        TIMER.execute(step);
    }

    /**
     * Returns a random pause in {@code [min, max)} ms, cut to what is left before the deadline, so
     * that two callers that rolled back do not collide again in step.
     * @param minMillis lower bound
     * @param maxMillis upper bound
     * @param deadline {@link System#nanoTime()} deadline, or {@link Long#MAX_VALUE}
     * @return a future completed after the pause
     */
    static CompletableFuture<Void> backOff(long minMillis, long maxMillis, long deadline) {
        long pause = ThreadLocalRandom.current().nextLong(minMillis, maxMillis);
        return after(Math.min(pause, millisLeft(deadline)));
    }

    /**
     * Returns a deadline {@code millis} from now.
     * @param millis time in ms, or {@code -1} for none
     * @return a {@link System#nanoTime()} deadline, or {@link Long#MAX_VALUE} for none
     */
    static long deadline(long millis) {
        return millis < 0 ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /**
     * Returns what is left before a deadline.
     * @param deadline from {@link #deadline(long)}
     * @return ms left, {@code 0} once passed, {@link Long#MAX_VALUE} for no deadline
     */
    static long millisLeft(long deadline) {
        if (deadline == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }

    /**
     * Returns whether a deadline has passed.
     * @param deadline from {@link #deadline(long)}
     * @return whether it passed
     */
    static boolean passed(long deadline) {
        return deadline != Long.MAX_VALUE && deadline - System.nanoTime() <= 0;
    }
}
