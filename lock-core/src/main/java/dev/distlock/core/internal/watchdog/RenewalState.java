package dev.distlock.core.internal.watchdog;

import dev.distlock.core.internal.hold.Hold;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The renewal state of one hold under the {@link LeaseWatchdog}: whether a renewal is in flight,
 * how the last ones went, and when a streak of failures is worth a warning.
 */
final class RenewalState {

    /** Consecutive failed renewals after which a hold has at most about a third of its lease left. */
    private static final int WARN_AFTER_FAILURES = 2;

    private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);

    private boolean inFlight;
    private int failures;
    private long confirmedNanos;
    private boolean warned;

    RenewalState(long confirmedNanos) {
        this.confirmedNanos = confirmedNanos;
    }

    synchronized boolean inFlight() {
        return inFlight;
    }

    synchronized boolean begin() {
        if (inFlight) {
            return false;
        }
        inFlight = true;
        return true;
    }

    synchronized void end() {
        inFlight = false;
    }

    /** @return whether this ends a streak of failures that was warned about */
    synchronized boolean renewed(long now) {
        inFlight = false;
        failures = 0;
        confirmedNanos = now;
        boolean recovered = warned;
        warned = false;
        return recovered;
    }

    synchronized int failed() {
        inFlight = false;
        return ++failures;
    }

    synchronized long confirmedNanos() {
        return confirmedNanos;
    }

    /** @return whether to warn now: once per streak of failures */
    synchronized boolean warn() {
        if (warned) {
            return false;
        }
        warned = true;
        return true;
    }

    /**
     * Records a failed renewal and logs it: a warning once per streak that lasts two rounds or eats
     * a third of the lease, else at debug level.
     * @param hold the hold
     * @param now when the renewal failed, in {@link System#nanoTime()} terms
     * @param leaseMillis the watchdog lease
     * @param cause what the renewal failed with
     */
    void reportFailure(Hold hold, long now, long leaseMillis, Throwable cause) {
        int failures = failed();
        long silentMillis = TimeUnit.NANOSECONDS.toMillis(now - confirmedNanos());
        // Two failed rounds, or a third of the lease left (a frozen node costs a command timeout per round).
        if ((failures >= WARN_AFTER_FAILURES || silentMillis >= leaseMillis * 2 / 3) && warn()) {
            log.warn(
                    "Cannot renew lock '{}' (owner {}): {} renewals in a row failed, the last confirmed one was {} ms"
                            + " ago, so its {} ms lease ends within about {} ms unless a renewal gets through; still retrying: {}",
                    hold.lockName(),
                    hold.ownerField(),
                    failures,
                    silentMillis,
                    leaseMillis,
                    Math.max(0, leaseMillis - silentMillis),
                    String.valueOf(cause.getMessage()));
        } else {
            log.debug(
                    "Lease renewal of lock '{}' (owner {}) failed; retrying next round",
                    hold.lockName(),
                    hold.ownerField(),
                    cause);
        }
    }
}
