package dev.distlock.core;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A read-write lock in Redis: many readers or one writer, in Redisson's data layout.
 *
 * <p>The writer may also take the read lock (downgrade). A reader may not take the write lock:
 * {@code tryLock} with a wait returns {@code false} once the wait is spent, and {@code lock()}
 * throws {@link IllegalMonitorStateException} rather than deadlock.
 */
public interface RedisReadWriteLock extends ReadWriteLock {

    /**
     * Returns the lock's name as given to the client.
     * @return the lock name
     */
    String getName();

    @Override
    RedisLock readLock();

    @Override
    RedisLock writeLock();
}
