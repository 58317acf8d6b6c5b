package dev.distlock.core.internal.lock;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/** Argument checks whose messages name the argument and the accepted values. */
public final class Arguments {

    /** Longest accepted lease or wait: 100 years, far below what Redis' PEXPIRE overflows at. */
    static final long MAX_MILLIS = TimeUnit.DAYS.toMillis(36_500);

    private Arguments() {}

    /**
     * Checks a lock name.
     * @param name the name
     * @return the name
     */
    public static String requireName(String name) {
        Objects.requireNonNull(name, "'name' must not be null");
        if (name.isBlank()) {
            throw new IllegalArgumentException("'name' must not be blank");
        }
        return name;
    }

    /**
     * Converts a wait to ms: {@code >= 0}, or {@code -1} for "forever" (returned as -1).
     * @param waitTime the wait
     * @param unit its unit
     * @return milliseconds, or -1
     */
    public static long waitMillis(long waitTime, TimeUnit unit) {
        Objects.requireNonNull(unit, "'unit' must not be null");
        if (waitTime == -1) {
            return -1;
        }
        if (waitTime < 0) {
            throw new IllegalArgumentException("'waitTime' must be >= 0, or -1 to wait forever; was " + waitTime);
        }
        return Math.min(unit.toMillis(waitTime), MAX_MILLIS);
    }

    /**
     * Converts a lease to ms: positive, or {@code -1} for the watchdog (returned as -1).
     * @param leaseTime the lease
     * @param unit its unit
     * @return milliseconds (at least 1), or -1
     */
    public static long leaseMillis(long leaseTime, TimeUnit unit) {
        Objects.requireNonNull(unit, "'unit' must not be null");
        if (leaseTime == -1) {
            return LockEngine.WATCHDOG;
        }
        if (leaseTime <= 0) {
            throw new IllegalArgumentException(
                    "'leaseTime' must be positive, or -1 for a watchdog-renewed lease; was " + leaseTime);
        }
        long millis = unit.toMillis(leaseTime);
        if (millis > MAX_MILLIS) {
            throw new IllegalArgumentException("'leaseTime' must be at most 36500 days; was " + leaseTime + " " + unit);
        }
        return Math.max(1, millis);
    }
}
