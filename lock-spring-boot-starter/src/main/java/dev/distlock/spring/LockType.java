package dev.distlock.spring;

import dev.distlock.core.LockKind;

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
    RED,

    /**
     * One permit of a semaphore ({@link DistributedSemaphore}, {@link LockTemplate#withPermit}); it
     * needs a permit count, so {@link DistributedLock#type()} and {@link LockOptions} refuse it.
     */
    SEMAPHORE;

    /**
     * Returns the lock-core kind this type takes: the one mapping from annotation types to kinds,
     * whose {@link LockKind#kindName()} is also the {@code type} tag of metrics and observations
     * and the type the actuator endpoint reports. A fenced {@link #REENTRANT} lock is reported as
     * {@code reentrant} too: fencing is an option of that type, not a type of its own.
     * @return the kind
     */
    public LockKind kind() {
        return switch (this) {
            case REENTRANT -> LockKind.REENTRANT;
            case FAIR -> LockKind.FAIR;
            case READ -> LockKind.READ;
            case WRITE -> LockKind.WRITE;
            case RED -> LockKind.RED;
            case SEMAPHORE -> LockKind.SEMAPHORE;
        };
    }
}
