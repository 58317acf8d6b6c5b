package dev.distlock.core;

import dev.distlock.core.contract.AbstractRedisLockContractTests;

class ReentrantLockContractTests extends AbstractRedisLockContractTests {

    @Override
    protected RedisLock newLock(LockClient client, String name) {
        return client.getLock(name);
    }
}
