package dev.distlock.core;

import dev.distlock.core.contract.AbstractRedisLockContractTests;

class WriteLockContractTests extends AbstractRedisLockContractTests {

    @Override
    protected RedisLock newLock(LockClient client, String name) {
        return client.getReadWriteLock(name).writeLock();
    }
}
