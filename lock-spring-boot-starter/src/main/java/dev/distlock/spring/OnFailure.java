package dev.distlock.spring;

/**
 * What a {@link DistributedLock} method does when the lock cannot be acquired within its wait time.
 */
public enum OnFailure {

    /** Throw {@link LockAcquisitionException} (a failed future or an error signal for async methods). */
    THROW,

    /**
     * Do not call the method: return {@code null}, an empty {@code Optional}, a future of
     * {@code null}, or an empty {@code Mono}/{@code Flux}.
     */
    SKIP,

    /**
     * Call the method named by {@link DistributedLock#fallback()} on the same bean with the same
     * arguments and return its result.
     */
    FALLBACK
}
