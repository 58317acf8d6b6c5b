package dev.distlock.spring;

/**
 * Kind of lock a {@link DistributedLock} or {@link LockTemplate} call takes.
 */
public enum LockType {

    /** Reentrant exclusive lock (Redisson {@code RLock}). */
    REENTRANT,

    /** Exclusive lock granted in request order (Redisson {@code RFairLock}). */
    FAIR,

    /** Shared read side of a read-write lock. */
    READ,

    /** Exclusive write side of a read-write lock. */
    WRITE,

    /** Red lock over the independent masters of {@code distlock.redlock.nodes}. */
    RED
}
