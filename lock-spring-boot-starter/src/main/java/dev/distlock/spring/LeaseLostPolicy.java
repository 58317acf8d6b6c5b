package dev.distlock.spring;

/**
 * What happens when a lock's lease is lost while the locked method still runs (a watchdog renewal
 * found the lock gone, or an explicit lease ran out). A WARN is logged and counted in every case.
 */
public enum LeaseLostPolicy {

    /** Only log and count. */
    LOG,

    /** Interrupt the holding thread, or cancel the future or reactive subscription. */
    INTERRUPT,

    /** Throw {@link LockLeaseExpiredException} once the method returns, so a surrounding transaction rolls back. */
    THROW
}
