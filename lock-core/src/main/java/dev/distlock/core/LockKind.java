package dev.distlock.core;

import java.util.Locale;

/**
 * The kinds of lock a {@link LockClient} makes, as diagnostics report them: {@link HeldLock#kind()},
 * {@link LockInfo#modeKind()}, and the Spring Boot starter's metrics, observations and actuator
 * endpoint, which all name a kind by its {@link #kindName()}.
 */
public enum LockKind {

    /** Reentrant lock, {@link LockClient#getLock(String)} (Redisson's {@code RLock}). */
    REENTRANT,

    /** Reentrant lock with fencing tokens, {@link LockClient#getFencedLock(String)}. */
    FENCED,

    /** Lock granted in request order, {@link LockClient#getFairLock(String)}. */
    FAIR,

    /** Read side of a {@link RedisReadWriteLock}. */
    READ,

    /** Write side of a {@link RedisReadWriteLock}. */
    WRITE,

    /** {@link RedLock} over independent masters; its holds are those of its members on each master. */
    RED,

    /** A permit of a {@link RedisSemaphore}, {@link LockClient#getSemaphore(String)}. */
    SEMAPHORE;

    /**
     * Returns the kind's lowercase name, as diagnostics print it.
     * @return e.g. {@code reentrant}
     */
    public String kindName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
