package dev.distlock.core;

import dev.distlock.core.test.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The semaphore contract on a three-master Redis Cluster. */
class ClusterSemaphoreContractTests extends AbstractSemaphoreContractTests {

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
    protected LockClientOptions.Builder connect(LockClientOptions.Builder options) {
        return options.cluster(cluster.uris());
    }
}
