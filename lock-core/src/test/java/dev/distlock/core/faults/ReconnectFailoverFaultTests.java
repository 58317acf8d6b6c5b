package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisCluster;
import dev.distlock.core.test.RedisSentinelGroup;
import dev.distlock.core.test.RedisServer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Calls made the moment a master dies, before Sentinel or the Cluster promotes its replica: each
 * waits for the connection to the new master within its deadline and then runs, instead of failing
 * at once because the client is reconnecting.
 */
@Tag("fault")
class ReconnectFailoverFaultTests {

    private final String run = UUID.randomUUID().toString();

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void whenTheSentinelMasterDiesThenCallsMadeDuringTheFailoverRunOnTheNewMaster() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try (RedisSentinelGroup group = RedisSentinelGroup.start();
                LockClient client = LockClient.create(LockClientOptions.builder()
                        .sentinel(RedisSentinelGroup.MASTER_ID, group.sentinelUris())
                        // Longer than the failover (about 2.5 s with a 1 s down-after).
                        .commandTimeout(Duration.ofSeconds(10))
                        .build())) {
            connect(client);
            RedisServer replica = group.replica();
            long owner = RedisLock.newOwnerId();
            group.master().stop();
            DropSeen.awaitSeenBy(client.getLock("probe-" + run));
            Future<Boolean> acquired =
                    pool.submit(() -> client.getLock("failover-" + run).tryLock(0, 30, TimeUnit.SECONDS, owner));
            Future<Boolean> inspected =
                    pool.submit(() -> client.getLock("other-" + run).isLocked());
            assertThat(acquired.get(20, TimeUnit.SECONDS)).isTrue();
            assertThat(inspected.get(20, TimeUnit.SECONDS)).isFalse();
            assertThat(replica.command("EXISTS", "failover-" + run)).isEqualTo("1");
            client.getLock("failover-" + run).unlock(owner);
            assertThat(replica.command("EXISTS", "failover-" + run)).isEqualTo("0");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void whenAClusterMasterDiesThenCallsMadeDuringTheFailoverRunOnThePromotedReplica() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try (RedisCluster cluster = RedisCluster.start(3, 1);
                LockClient client = LockClient.create(LockClientOptions.builder()
                        .cluster(cluster.uris())
                        // Longer than the failover: the fixture's cluster-node-timeout is 5 s.
                        .commandTimeout(Duration.ofSeconds(20))
                        .build())) {
            connect(client);
            String name = "failover-" + run;
            int master = cluster.masterIndexOf(name);
            RedisServer replica = cluster.replicasOf(master).get(0);
            // Connected to the master of the lock's slot before it dies (same slot through the hash tag).
            assertThat(client.getLock("{" + name + "}:warm").tryLock(0, 30, TimeUnit.SECONDS))
                    .isTrue();
            long owner = RedisLock.newOwnerId();
            cluster.masters().get(master).stop();
            DropSeen.awaitSeenBy(client.getLock("{" + name + "}:probe"));
            Future<Boolean> acquired = pool.submit(() -> client.getLock(name).tryLock(0, 30, TimeUnit.SECONDS, owner));
            assertThat(acquired.get(40, TimeUnit.SECONDS)).isTrue();
            assertThat(replica.command("INFO", "replication")).contains("role:master");
            assertThat(client.getLock(name).isHeldBy(owner)).isTrue();
            client.getLock(name).unlock(owner);
            assertThat(client.getLock(name).isLocked()).isFalse();
        } finally {
            pool.shutdownNow();
        }
    }

    private static void connect(LockClient client) {
        // The first connection of a JVM loads many classes, which takes seconds on a loaded machine.
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> client.ping() != null);
    }
}
