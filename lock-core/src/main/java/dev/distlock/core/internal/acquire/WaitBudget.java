package dev.distlock.core.internal.acquire;

import java.util.concurrent.TimeUnit;

/**
 * How long one acquisition may still wait, from its start and the caller's wait ({@code 0}: one
 * attempt, negative: as long as needed).
 */
final class WaitBudget {

    private final long start = System.nanoTime();
    private final long waitMillis;
    private final long commandTimeoutNanos;

    WaitBudget(long waitMillis, long commandTimeoutNanos) {
        this.waitMillis = waitMillis;
        this.commandTimeoutNanos = commandTimeoutNanos;
    }

    /** @return when the acquisition started, in {@link System#nanoTime()} terms */
    long start() {
        return start;
    }

    /** @return the caller's wait in ms */
    long waitMillis() {
        return waitMillis;
    }

    /** @return whether the caller waits as long as needed */
    boolean forever() {
        return waitMillis < 0;
    }

    /** @return ms left of the caller's wait ({@link Long#MAX_VALUE} when it waits as long as needed) */
    long remainingMillis() {
        if (waitMillis < 0) {
            return Long.MAX_VALUE;
        }
        return TimeUnit.NANOSECONDS.toMillis(start + TimeUnit.MILLISECONDS.toNanos(waitMillis) - System.nanoTime());
    }

    /**
     * Returns until when an attempt may wait for the connection while the client reconnects: the
     * end of the caller's wait, but at least one command timeout from now, as a call that does not
     * wait gets.
     * @return the time, in {@link System#nanoTime()} terms
     */
    long connectBy() {
        long now = System.nanoTime();
        if (waitMillis < 0) {
            // Waits as long as needed: for the connection too.
            return now + TimeUnit.DAYS.toNanos(365);
        }
        return Math.max(now + commandTimeoutNanos, start + TimeUnit.MILLISECONDS.toNanos(waitMillis));
    }
}
