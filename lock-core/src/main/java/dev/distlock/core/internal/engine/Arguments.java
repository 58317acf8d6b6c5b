package dev.distlock.core.internal.engine;

import dev.distlock.core.RedisLock;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/** Argument checks whose messages name the argument and the accepted values. */
public final class Arguments {

    /** Wait in ms, as the acquisitions take it, that means "as long as needed" ({@code lock()}, {@link RedisLock#WAIT_FOREVER}). */
    public static final long FOREVER = -1;

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
     * Converts a wait to ms as Redisson reads it: {@link RedisLock#WAIT_FOREVER} waits as long as
     * needed (returned as {@link #FOREVER}); {@code 0} or a negative wait makes one attempt
     * (returned as {@code 0}); a positive wait is capped at 36500 days.
     * @param waitTime the wait
     * @param unit its unit
     * @return milliseconds, or {@link #FOREVER}
     */
    public static long waitMillis(long waitTime, TimeUnit unit) {
        Objects.requireNonNull(unit, "'unit' must not be null");
        if (waitTime == RedisLock.WAIT_FOREVER) {
            return FOREVER;
        }
        if (waitTime <= 0) {
            // Redisson's tryLock makes one attempt for any wait that is not positive; so does a migrated call.
            return 0;
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
