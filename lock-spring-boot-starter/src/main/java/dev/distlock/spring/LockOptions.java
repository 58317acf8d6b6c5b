package dev.distlock.spring;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Options of one {@link LockTemplate} call. A {@code null} wait or lease means the configured
 * default ({@code distlock.defaults.*}); a negative wait waits as long as it takes. A lease of
 * {@code Duration.ofMillis(-1)} uses the watchdog; any other negative or a zero lease is rejected, so
 * a wrong sign never turns a bounded lease into an unbounded one.
 *
 * @param type kind of lock
 * @param waitTime how long to wait, or {@code null} for the default
 * @param leaseTime lease of the hold, or {@code null} for the default
 */
public record LockOptions(LockType type, @Nullable Duration waitTime, @Nullable Duration leaseTime) {

    private static final Duration WATCHDOG = Duration.ofMillis(-1);

    /** Reentrant lock with the configured defaults. */
    public static final LockOptions DEFAULTS = new LockOptions(LockType.REENTRANT, null, null);

    /**
     * Creates options.
     * @param type kind of lock
     * @param waitTime how long to wait, or {@code null} for the default
     * @param leaseTime lease of the hold, or {@code null} for the default
     */
    public LockOptions {
        Objects.requireNonNull(type, "'type' must not be null");
        if (type == LockType.SEMAPHORE) {
            throw new IllegalArgumentException(
                    "'type' SEMAPHORE needs a permit count: use LockTemplate.withPermit or tryWithPermit");
        }
        if (leaseTime != null && (leaseTime.isZero() || (leaseTime.isNegative() && !leaseTime.equals(WATCHDOG)))) {
            throw new IllegalArgumentException(
                    "'leaseTime' must be positive, or Duration.ofMillis(-1) for a watchdog-renewed lease; was "
                            + leaseTime);
        }
    }

    /**
     * Returns default options for the given lock type.
     * @param type kind of lock
     * @return the options
     */
    public static LockOptions of(LockType type) {
        return new LockOptions(type, null, null);
    }

    /**
     * Returns a copy with the given wait time.
     * @param waitTime how long to wait
     * @return new options
     */
    public LockOptions withWaitTime(Duration waitTime) {
        return new LockOptions(type, Objects.requireNonNull(waitTime, "'waitTime' must not be null"), leaseTime);
    }

    /**
     * Returns a copy with the given lease time.
     * @param leaseTime lease of the hold
     * @return new options
     */
    public LockOptions withLeaseTime(Duration leaseTime) {
        return new LockOptions(type, waitTime, Objects.requireNonNull(leaseTime, "'leaseTime' must not be null"));
    }
}
