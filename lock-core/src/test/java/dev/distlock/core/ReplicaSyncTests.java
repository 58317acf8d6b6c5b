package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ReplicaSyncTests {

    private static RedisServer master;
    private static RedisServer replica;
    private static LockClient client;

    @BeforeAll
    static void startMasterAndReplica() {
        master = RedisServers.start();
        replica = RedisServers.start("--replicaof", master.host(), Integer.toString(master.port()));
        await().atMost(Duration.ofSeconds(15))
                .until(() -> replica.command("INFO", "replication").contains("master_link_status:up")
                        && master.command("INFO", "replication").contains("connected_slaves:1"));
        client = LockClient.create(LockClientOptions.builder()
                .uri(master.uri())
                .replicaSync(1, Duration.ofMillis(300))
                .build());
    }

    @AfterAll
    static void stopAll() {
        client.close();
        replica.stop();
        master.stop();
    }

    @Test
    void whenReplicaAcknowledgesThenAcquires() throws Exception {
        String name = "sync-" + UUID.randomUUID();
        RedisLock lock = client.getLock(name);
        assertThat(lock.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
        // WAIT returned only after the replica had the write, so it is there now.
        assertThat(replica.command("EXISTS", name)).isEqualTo("1");
        lock.unlock();
    }

    @Test
    void whenReplicaIsPausedThenFailsClearlyAndLeavesNothingLocked() throws Exception {
        String name = "sync-" + UUID.randomUUID();
        RedisLock lock = client.getLock(name);
        replica.pause();
        try {
            long start = System.nanoTime();
            assertThatThrownBy(() -> lock.tryLock(1000, 10_000, TimeUnit.MILLISECONDS))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("'" + name + "'")
                    .hasMessageContaining("only 0 of the 1 required replicas acknowledged it within 300 ms");
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isBetween(Duration.ofMillis(900), Duration.ofSeconds(5));
            assertThat(master.command("EXISTS", name)).isEqualTo("0");
            assertThatThrownBy(lock::tryLock).isInstanceOf(LockException.class).hasMessageContaining("replicaSync");
            assertThat(master.command("EXISTS", name)).isEqualTo("0");
            assertThat(client.heldLocks()).noneMatch(h -> h.name().equals(name));
        } finally {
            replica.resume();
        }
    }

    @Test
    void whenReplicaComesBackWithinTheWaitThenAcquires() throws Exception {
        String name = "sync-" + UUID.randomUUID();
        RedisLock lock = client.getLock(name);
        long owner = RedisLock.newOwnerId();
        replica.pause();
        CompletableFuture<Boolean> acquired;
        try {
            acquired = CompletableFuture.supplyAsync(() -> {
                try {
                    return lock.tryLock(10, 10, TimeUnit.SECONDS, owner);
                } catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            // Let at least one guarded attempt fail before the replica answers again.
            await().pollDelay(Duration.ofMillis(700))
                    .atMost(Duration.ofSeconds(2))
                    .until(() -> !acquired.isDone());
        } finally {
            replica.resume();
        }
        assertThat(acquired.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.isHeldBy(owner)).isTrue();
        lock.unlock(owner);
    }
}
