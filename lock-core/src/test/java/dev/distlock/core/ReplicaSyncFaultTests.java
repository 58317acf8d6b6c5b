package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
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

/** A replica-synced acquisition that waits for a stalled replica must not hold up the client's other locks. */
@Tag("fault")
class ReplicaSyncFaultTests {

    private static RedisServer master;
    private static RedisServer replica;
    private static LockClient client;
    private static LockClient stranger;

    @BeforeAll
    static void startMasterAndReplica() {
        master = RedisServers.start();
        replica = RedisServers.start("--replicaof", master.host(), Integer.toString(master.port()));
        await().atMost(Duration.ofSeconds(15))
                .until(() -> replica.command("INFO", "replication").contains("master_link_status:up")
                        && master.command("INFO", "replication").contains("connected_slaves:1"));
        client = LockClient.create(LockClientOptions.builder()
                .uri(master.uri())
                .watchdogTimeout(Duration.ofMillis(1500))
                .replicaSync(1, Duration.ofMillis(2500))
                .build());
        stranger = LockClient.create(master.uri());
    }

    @AfterAll
    static void stopAll() {
        client.close();
        stranger.close();
        replica.stop();
        master.stop();
    }

    @Test
    void whenAnAcquisitionWaitsForAStalledReplicaThenOtherLocksAreReleasedAndRenewedMeanwhile() throws Exception {
        String watched = "sync-watchdog-" + UUID.randomUUID();
        String leased = "sync-leased-" + UUID.randomUUID();
        String synced = "sync-waiting-" + UUID.randomUUID();
        long owner = RedisLock.newOwnerId();
        // Taken while the replica is healthy: WAIT answers at once.
        assertThat(client.getLock(watched).tryLock(0, -1, TimeUnit.MILLISECONDS, owner))
                .isTrue();
        assertThat(client.getLock(leased).tryLock(0, 30_000, TimeUnit.MILLISECONDS, owner))
                .isTrue();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        replica.pause();
        try {
            Future<Boolean> waiting = pool.submit(() -> client.getLock(synced).tryLock(6, 10, TimeUnit.SECONDS, owner));
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> master.command("CLIENT", "LIST").contains("cmd=wait"));

            long start = System.nanoTime();
            client.getLock(leased).unlock(owner);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("release while another acquisition WAITs")
                    // Queued behind the WAIT it would take most of the 2.5 s; the rest is a loaded machine's slack.
                    .isLessThan(Duration.ofMillis(1500));
            assertThat(master.command("EXISTS", leased)).isEqualTo("0");

            // Several watchdog timeouts pass while acquisitions keep waiting for the replica: the
            // watchdog hold must be renewed all along, so another client cannot take it.
            assertThat(stranger.getLock(watched).tryLock(5, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                    .as("another client took a watchdog hold whose renewals queued behind WAIT")
                    .isFalse();
            assertThat(client.getLock(watched).isHeldBy(owner)).isTrue();

            assertThatThrownBy(() -> waiting.get(15, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(LockException.class)
                    .hasMessageContaining("replicaSync");
            assertThat(master.command("EXISTS", synced)).isEqualTo("0");
        } finally {
            replica.resume();
            pool.shutdownNow();
            client.getLock(watched).forceUnlock();
        }
    }
}
