package dev.distlock.core;

import dev.distlock.core.contract.AbstractRedisLockContractTests;

/** Read holds share with each other, so the contender of a read lock is the write lock. */
class ReadLockContractTests extends AbstractRedisLockContractTests {

    @Override
    protected RedisLock newLock(LockClient client, String name) {
        return client.getReadWriteLock(name).readLock();
    }

    @Override
    protected RedisLock newContender(LockClient client, String name) {
        return client.getReadWriteLock(name).writeLock();
    }

    @Override
    protected boolean exclusive() {
        return false;
    }
}
