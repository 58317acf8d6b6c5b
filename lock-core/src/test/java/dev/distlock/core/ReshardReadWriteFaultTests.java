package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisCluster;
import dev.distlock.core.test.SlotMigration;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A live slot migration that has moved a read-write lock's hash to the importing node but not yet
 * its read holds' timeout keys (a reshard batch of fewer keys than the lock has) must neither let a
 * writer in beside the readers nor make the readers' renewals report their leases lost: a script
 * that cannot see all the keys it decides on must not decide.
 */
@Tag("fault")
class ReshardReadWriteFaultTests {

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static LockClient client(Duration watchdog, LockListener listener) {
        return LockClient.create(LockClientOptions.builder()
                .cluster(cluster.uris())
                .watchdogTimeout(watchdog)
                .listener(listener)
                .build());
    }

    /** @return "acquired", "refused", or the failure of a writer's attempt */
    private static String attempt(RedisLock writer, long waitSeconds) {
        try {
            return writer.tryLock(waitSeconds, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()) ? "acquired" : "refused";
        } catch (LockException ex) {
            return "failed: " + ex.getMessage();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    @Test
    void whenTheHashMovesBeforeTheReadHoldsThenAWriterIsNotLetInBesideTwoReaders() throws Exception {
        String name = "reshard-rw-" + UUID.randomUUID();
        try (LockClient readers = client(Duration.ofSeconds(30), LockListener.NO_OP);
                LockClient writers = client(Duration.ofSeconds(30), LockListener.NO_OP)) {
            RedisLock read = readers.getReadWriteLock(name).readLock();
            long first = RedisLock.newOwnerId();
            long second = RedisLock.newOwnerId();
            assertThat(read.tryLock(0, -1, TimeUnit.SECONDS, first)).isTrue();
            assertThat(read.tryLock(0, -1, TimeUnit.SECONDS, second)).isTrue();
            RedisLock write = writers.getReadWriteLock(name).writeLock();
            assertThat(attempt(write, 0)).isEqualTo("refused");

            SlotMigration migration = SlotMigration.begin(cluster, name, cluster.otherMasterThan(name));
            migration.migrate(name);
            // The readers' grant records stay behind too; the read hold timeouts are what the writer decides on.
            assertThat(migration.keysOnSource())
                    .as("read hold timeouts left behind")
                    .filteredOn(k -> k.contains(":rwlock_timeout:"))
                    .hasSize(2);

            // An attempt that ends while the lock is split must not be granted; one that is still
            // retrying when the move completes sees both readers and is refused.
            assertThat(attempt(write, 0)).isNotEqualTo("acquired");
            CompletableFuture<String> acrossTheMove = CompletableFuture.supplyAsync(() -> attempt(write, 3));
            await().pollDelay(Duration.ofMillis(500)).until(() -> true);
            migration.finish();
            assertThat(acrossTheMove.get(20, TimeUnit.SECONDS)).isEqualTo("refused");

            assertThat(attempt(write, 0)).isEqualTo("refused");
            assertThat(read.isHeldBy(first)).isTrue();
            assertThat(read.isHeldBy(second)).isTrue();
            read.unlock(first);
            read.unlock(second);
            assertThat(attempt(write, 0)).isEqualTo("acquired");
        }
    }

    @Test
    void whenTheHashMovesBeforeTheReadHoldsThenRenewalsNeverReportTheReadersLost() throws Exception {
        String name = "reshard-renew-" + UUID.randomUUID();
        List<Long> lost = new CopyOnWriteArrayList<>();
        LockListener listener = new LockListener() {
            @Override
            public void onLeaseLost(String lockName, long ownerId) {
                lost.add(ownerId);
            }
        };
        // Renewals every 2 s: at least one round runs while the lock is split.
        try (LockClient readers = client(Duration.ofSeconds(6), listener);
                LockClient writers = client(Duration.ofSeconds(30), LockListener.NO_OP)) {
            RedisLock read = readers.getReadWriteLock(name).readLock();
            long first = RedisLock.newOwnerId();
            long second = RedisLock.newOwnerId();
            assertThat(read.tryLock(0, -1, TimeUnit.SECONDS, first)).isTrue();
            assertThat(read.tryLock(0, -1, TimeUnit.SECONDS, second)).isTrue();

            SlotMigration migration = SlotMigration.begin(cluster, name, cluster.otherMasterThan(name));
            migration.migrate(name);
            await().during(Duration.ofMillis(3000))
                    .atMost(Duration.ofSeconds(5))
                    .until(lost::isEmpty);
            migration.finish();
            // Two more rounds after the move: the leases are renewed, not lost.
            await().during(Duration.ofMillis(4500))
                    .atMost(Duration.ofSeconds(7))
                    .until(lost::isEmpty);

            assertThat(read.isHeldBy(first)).isTrue();
            assertThat(read.isHeldBy(second)).isTrue();
            assertThat(attempt(writers.getReadWriteLock(name).writeLock(), 0)).isEqualTo("refused");
            read.unlock(first);
            read.unlock(second);
            assertThat(lost).isEmpty();
        }
    }
}
