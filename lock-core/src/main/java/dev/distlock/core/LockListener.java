package dev.distlock.core;

/**
 * Callbacks on lock events, for metrics and alerting. Every method has a no-op default; a listener
 * that throws is logged and ignored, it never blocks an acquisition or a release.
 *
 * <p>Callbacks run on the thread that caused them, or on the watchdog thread for lease losses:
 * keep them short.
 */
public interface LockListener {

    /** A listener that does nothing. */
    LockListener NO_OP = new LockListener() {};

    /**
     * A hold was acquired.
     * @param lockName lock name (without key prefix)
     * @param ownerId thread id or explicit owner id
     * @param waitNanos how long the acquisition took
     */
    default void onAcquired(String lockName, long ownerId, long waitNanos) {}

    /**
     * An acquisition gave up because its wait was spent.
     * @param lockName lock name (without key prefix)
     * @param ownerId thread id or explicit owner id
     * @param waitNanos how long it waited
     */
    default void onTimeout(String lockName, long ownerId, long waitNanos) {}

    /**
     * The owner's last unlock is about to release a hold in Redis; heard on the thread that calls
     * {@code unlock} or {@code unlockAsync}. It is followed by {@link #onReleased} once Redis has
     * released it, or by {@link #onLeaseLost} when the
     * lease was already gone, or by nothing when the release fails. For timelines: from this moment
     * the owner no longer uses the lock, so holds timed from {@link #onAcquired} to here never
     * overlap for an exclusive lock, whereas {@link #onReleased} can be heard after the next owner's
     * {@link #onAcquired}.
     * @param lockName lock name (without key prefix)
     * @param ownerId thread id or explicit owner id
     */
    default void onReleasing(String lockName, long ownerId) {}

    /**
     * A hold was released (the owner's last unlock).
     * @param lockName lock name (without key prefix)
     * @param ownerId thread id or explicit owner id
     */
    default void onReleased(String lockName, long ownerId) {}

    /**
     * A hold was lost while its owner still believed it held it: a watchdog renewal found the lock
     * gone or owned by someone else, an unlock found the lease already expired, or this client's
     * {@link RedisLock#forceUnlock()} deleted it (heard on the thread that force-unlocks).
     * @param lockName lock name (without key prefix)
     * @param ownerId thread id or explicit owner id
     */
    default void onLeaseLost(String lockName, long ownerId) {}
}
