package dev.distlock.core;

import dev.distlock.core.test.RedisSentinelGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The semaphore contract behind Redis Sentinel (a master, a replica, three sentinels). */
class SentinelSemaphoreContractTests extends AbstractSemaphoreContractTests {

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
    protected LockClientOptions.Builder connect(LockClientOptions.Builder options) {
        return options.sentinel(RedisSentinelGroup.MASTER_ID, group.sentinelUris());
    }
}
