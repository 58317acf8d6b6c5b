package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisSentinelGroup;
import dev.distlock.core.test.RedisServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A release lost in a Sentinel split brain (it ran on the deposed master only) leaves the owner's
 * hold on the new master: a hold nobody will unlock, which must expire with its lease. The
 * owner's later acquisitions are fresh as far as its client knows (it holds nothing there, no
 * attempt is in flight or lost), so they must not count as re-entries of that orphan: each one
 * would push its lease out again and leave one hold behind after the unlock, so that while the
 * owner keeps taking the lock nobody else ever gets it (chaos sentinel seed 151030822: lf-0
 * taken 15 times in a row by one owner in 32 s while five fair waiters timed out).
 */
@Tag("fault")
class FairOrphanHoldFaultTests {

    private static final String NAME = "orphan-fair";
    /** The lease of every hold here: the orphan must be gone this long after its grant. */
    private static final long LEASE_MILLIS = 6000;

    private static LockClient client(RedisSentinelGroup group) {
        return LockClient.create(LockClientOptions.builder()
                .sentinel(RedisSentinelGroup.MASTER_ID, group.sentinelUris())
                .commandTimeout(Duration.ofSeconds(1))
                .fairLockWaitTimeout(Duration.ofSeconds(30))
                .build());
    }

    @Test
    void whenAFairReleaseIsLostInASplitBrainThenTheOwnersFreshAcquisitionsDoNotKeepTheOrphanAlive() throws Exception {
        try (RedisSentinelGroup group = RedisSentinelGroup.start();
                LockClient ownerClient = client(group)) {
            RedisServer oldMaster = group.master();
            RedisServer newMaster = group.replica();
            RedisLock lock = ownerClient.getFairLock(NAME);
            long owner = RedisLock.newOwnerId();
            assertThat(lock.tryLock(0, LEASE_MILLIS, TimeUnit.MILLISECONDS, owner))
                    .isTrue();
            oldMaster.command("WAIT", "1", "2000");
            assertThat(newMaster.command("EXISTS", NAME).trim()).endsWith("1");

            // Split brain: the replica is promoted, the owner's unlock still reaches the old master
            // (its connection stays open there) and is lost with it when it is demoted.
            newMaster.command("REPLICAOF", "NO", "ONE");
            lock.unlock(owner);
            oldMaster.command("REPLICAOF", newMaster.host(), Integer.toString(newMaster.port()));
            // Read-only at once (its full sync with the new master comes later): the owner's client
            // gets READONLY there and follows the sentinels to the new master.
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> oldMaster.command("ROLE").startsWith("slave"));
            group.repointSentinels(newMaster);
            assertThat(newMaster.command("EXISTS", NAME).trim())
                    .as("the orphan hold is on the new master")
                    .endsWith("1");
            long orphanGone = System.nanoTime()
                    + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(
                            newMaster.command("PTTL", NAME).trim().replace(":", "")));

            // Another call of the owner's client meets READONLY first and makes it follow the new
            // master, so that no attempt of the owner on the fair lock fails (a failed one would make
            // the next adopt what it may have taken, which hides the defect).
            RedisLock other = ownerClient.getLock(NAME + "-switch");
            long switcher = RedisLock.newOwnerId();
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100))
                    .ignoreException(LockException.class)
                    .until(() -> other.tryLock(0, 10, TimeUnit.SECONDS, switcher));
            other.unlock(switcher);

            // The owner goes on taking the lock now and then, as the chaos line thread did.
            OwnerLoop ownerLoop = new OwnerLoop(lock, owner, LEASE_MILLIS, 400);
            try (LockClient otherClient = client(group)) {
                RedisLock theirs = otherClient.getFairLock(NAME);
                long waiter = RedisLock.newOwnerId();
                long start = System.nanoTime();
                CompletableFuture<Boolean> acquired = CompletableFuture.supplyAsync(() -> {
                    try {
                        return theirs.tryLock(20_000, LEASE_MILLIS, TimeUnit.MILLISECONDS, waiter);
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                });
                boolean got = acquired.get(40, TimeUnit.SECONDS);
                long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                long orphanLeftMillis = Math.max(0, TimeUnit.NANOSECONDS.toMillis(orphanGone - start));
                // Bound by what happens, not by a clock: with the orphan kept alive the waiter never
                // gets in, however long it waits; with it left alone, it gets in as the orphan expires.
                assertThat(got)
                        .as(
                                "another client's fair waiter gets the lock once the orphan's lease ran out"
                                        + " (%d ms after it started waiting), though the owner took the lock %d times"
                                        + " meanwhile; waited %d ms",
                                orphanLeftMillis, ownerLoop.taken(), waitedMillis)
                        .isTrue();
                if (got) {
                    theirs.unlock(waiter);
                }
            } finally {
                ownerLoop.close();
            }
        }
    }
}
