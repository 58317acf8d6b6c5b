package dev.distlock.core;

import dev.distlock.core.contract.AbstractRedisLockContractTests;
import dev.distlock.core.test.RedisSentinelGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The reentrant lock keeps its contract behind Redis Sentinel (a master, a replica, three sentinels). */
class SentinelReentrantContractTests extends AbstractRedisLockContractTests {

    private static RedisSentinelGroup group;

    @BeforeAll
    static void startGroup() {
        group = RedisSentinelGroup.start();
    }

    @AfterAll
    static void stopGroup() {
        group.close();
    }

    @Override
    protected LockClient newClient() {
        return LockClient.create(LockClientOptions.builder()
                .sentinel(RedisSentinelGroup.MASTER_ID, group.sentinelUris())
                .watchdogTimeout(WATCHDOG)
                .build());
    }

    @Override
    protected RedisLock newLock(LockClient client, String name) {
        return client.getLock(name);
    }
}
