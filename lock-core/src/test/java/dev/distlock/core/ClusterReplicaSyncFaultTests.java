package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisCluster;
import dev.distlock.core.test.RedisServer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** In a cluster, a replica-synced acquisition waiting for a stalled replica must not hold up that master's other locks. */
@Tag("fault")
class ClusterReplicaSyncFaultTests {

    private static RedisCluster cluster;
    private static LockClient client;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3, 1);
        client = LockClient.create(LockClientOptions.builder()
                .cluster(cluster.uris())
                .replicaSync(1, Duration.ofMillis(2500))
                .build());
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        cluster.close();
    }

    private static String nameOn(int master, String label) {
        String run = UUID.randomUUID().toString();
        for (int i = 0; ; i++) {
            String name = label + "-" + run + "-" + i;
            if (cluster.masterIndexOf(name) == master) {
                return name;
            }
        }
    }

    @Test
    void whenAnAcquisitionWaitsForAStalledReplicaThenTheSameMastersOtherLocksAreReleasedPromptly() throws Exception {
        String leased = nameOn(1, "leased");
        String synced = nameOn(1, "waiting");
        long owner = RedisLock.newOwnerId();
        assertThat(client.getLock(leased).tryLock(0, 30_000, TimeUnit.MILLISECONDS, owner))
                .isTrue();
        RedisServer master = cluster.masters().get(1);
        RedisServer paused = cluster.replicasOf(1).get(0);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        paused.pause();
        try {
            Future<Boolean> waiting = pool.submit(() -> client.getLock(synced).tryLock(4, 10, TimeUnit.SECONDS, owner));
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> master.command("CLIENT", "LIST").contains("cmd=wait"));

            long start = System.nanoTime();
            client.getLock(leased).unlock(owner);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("release while another acquisition WAITs")
                    // Queued behind the WAIT it would take most of the 2.5 s; the rest is a loaded machine's slack.
                    .isLessThan(Duration.ofMillis(1500));
            assertThat(master.command("EXISTS", leased)).isEqualTo("0");

            assertThatThrownBy(() -> waiting.get(15, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(LockException.class)
                    .hasMessageContaining("replicaSync");
            assertThat(master.command("EXISTS", synced)).isEqualTo("0");
        } finally {
            paused.resume();
            pool.shutdownNow();
            client.getLock(leased).forceUnlock();
        }
    }
}
