package dev.distlock.core;

import dev.distlock.core.contract.AbstractRedisLockContractTests;
import dev.distlock.core.test.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The reentrant lock keeps its contract on a three-master Redis Cluster. */
class ClusterReentrantContractTests extends AbstractRedisLockContractTests {

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Override
    protected LockClient newClient() {
        return LockClient.create(LockClientOptions.builder()
                .cluster(cluster.uris())
                .watchdogTimeout(WATCHDOG)
                .build());
    }

    @Override
    protected RedisLock newLock(LockClient client, String name) {
        return client.getLock(name);
    }
}
