package dev.distlock.core.internal.kind;

import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisReadWriteLock;
import dev.distlock.core.internal.engine.Arguments;
import dev.distlock.core.internal.engine.LockEngine;

/** A read-write lock as a pair of views on one Redis hash. */
public final class DefaultRedisReadWriteLock implements RedisReadWriteLock {

    private final String name;
    private final RedisReadLock readLock;
    private final RedisWriteLock writeLock;

    /**
     * Creates the lock.
     * @param engine the client's engine
     * @param name lock name
     */
    public DefaultRedisReadWriteLock(LockEngine engine, String name) {
        this.name = Arguments.requireName(name);
        this.readLock = new RedisReadLock(engine, name);
        this.writeLock = new RedisWriteLock(engine, name);
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public RedisLock readLock() {
        return readLock;
    }

    @Override
    public RedisLock writeLock() {
        return writeLock;
    }

    @Override
    public String toString() {
        return "RedisReadWriteLock[" + name + "]";
    }
}
