package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.test.RedisCluster;
import dev.distlock.core.test.RedisServer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A cluster of 3 masters with one replica each, and the replica-sync guard routed by slot. */
class ClusterReplicaTopologyTests {

    private static RedisCluster cluster;
    private static LockClient client;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3, 1);
        client = LockClient.create(LockClientOptions.builder()
                .cluster(cluster.uris())
                .replicaSync(1, Duration.ofMillis(300))
                .build());
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        cluster.close();
    }

    private static String nameOn(int master) {
        String run = UUID.randomUUID().toString();
        for (int i = 0; ; i++) {
            String name = "replicated-" + run + "-" + i;
            if (cluster.masterIndexOf(name) == master) {
                return name;
            }
        }
    }

    @Test
    void whenEveryReplicaAcknowledgesThenLocksOnEveryMaster() throws Exception {
        for (int master = 0; master < 3; master++) {
            String name = nameOn(master);
            RedisLock lock = client.getLock(name);
            assertThat(lock.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
            // A cluster replica redirects key reads without READONLY, but KEYS lists its own keys: the copy
            // arrived. Not a key count: an acquisition the replica was slow to acknowledge is released and
            // retried, and each release leaves an unlock latch key beside the lock for a while.
            assertThat(cluster.replicasOf(master).get(0).command("KEYS", "*").split("\n"))
                    .contains(name);
            lock.unlock();
        }
    }

    @Test
    void whenOneMastersReplicaIsPausedThenOnlyThatMastersLocksFail() throws Exception {
        // WAIT must run on the connection of the slot's master: sent anywhere else it would count
        // another master's replicas (or no writes at all) and wrongly succeed.
        RedisServer paused = cluster.replicasOf(1).get(0);
        paused.pause();
        try {
            String blocked = nameOn(1);
            assertThatThrownBy(() -> client.getLock(blocked).tryLock(500, 10_000, TimeUnit.MILLISECONDS))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("only 0 of the 1 required replicas");
            assertThat(cluster.masters().get(1).command("EXISTS", blocked)).isEqualTo("0");
            for (int master : new int[] {0, 2}) {
                RedisLock lock = client.getLock(nameOn(master));
                assertThat(lock.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
                lock.unlock();
            }
        } finally {
            paused.resume();
        }
    }
}
