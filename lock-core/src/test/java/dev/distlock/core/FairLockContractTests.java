package dev.distlock.core;

import dev.distlock.core.contract.AbstractRedisLockContractTests;

class FairLockContractTests extends AbstractRedisLockContractTests {

    @Override
    protected RedisLock newLock(LockClient client, String name) {
        return client.getFairLock(name);
    }
}
