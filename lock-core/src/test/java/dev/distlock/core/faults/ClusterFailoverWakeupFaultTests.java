package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisCluster;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The master serving a lock's slot dies while another client's callers wait for the lock, and its
 * replica is promoted. The waiters' sharded subscriptions lived on the dead node; they must follow
 * the slot to the promoted replica, so that a release there wakes them at once instead of when
 * their wait runs out (or their fair-queue retry comes round). Each test prints its hand-off times
 * with {@code [fault]}.
 */
@Tag("fault")
class ClusterFailoverWakeupFaultTests {

    /** The holder's lease: far longer than the test, so only a wake-up ends a wait. */
    private static final long LEASE_SECONDS = 120;

    /** The waiters' wait: far longer than any prompt hand-off. */
    private static final long WAIT_SECONDS = 70;

    /** How soon after the release each waiter in turn must hold the lock: generous for a loaded machine. */
    private static final long HAND_OFF_BOUND_MILLIS = 10_000;

    /** A fair waiter's place in the queue outlives this much silence; its periodic retry is a third of it. */
    private static final Duration FAIR_WAITER_TIMEOUT = Duration.ofSeconds(30);

    private final String run = UUID.randomUUID().toString();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private RedisCluster cluster;
    private LockClient holder;
    private LockClient waiting;

    @BeforeEach
    void startCluster() {
        RedisServers.assumeRedis7("sharded pub/sub");
        cluster = RedisCluster.start(3, 1);
        holder = connect();
        waiting = connect();
    }

    @AfterEach
    void stopCluster() throws InterruptedException {
        pool.shutdownNow();
        pool.awaitTermination(5, TimeUnit.SECONDS);
        if (waiting != null) {
            waiting.close();
        }
        if (holder != null) {
            holder.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void whenTheMasterFailsOverThenWaitersGetTheReleasedLockPromptly() throws Exception {
        String name = "failover-waiters-" + run;
        RedisLock held = holder.getLock(name);
        long owner = RedisLock.newOwnerId();
        assertThat(held.tryLock(0, LEASE_SECONDS, TimeUnit.SECONDS, owner)).isTrue();
        RedisLock contended = waiting.getLock(name);
        List<Future<Long>> acquired = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            acquired.add(pool.submit(() -> acquireBriefly(contended)));
        }
        awaitShardedSubscriber("redisson_lock__channel:{" + name + "}");

        failOver(name);
        long released = release(held, owner);

        List<Long> handOffs = new ArrayList<>();
        for (Future<Long> at : acquired) {
            handOffs.add(TimeUnit.NANOSECONDS.toMillis(at.get(WAIT_SECONDS + 15, TimeUnit.SECONDS) - released));
        }
        System.out.println("[fault] cluster failover, waiters held the lock ms after the release: " + handOffs);
        assertThat(handOffs)
                .as("ms from the release until each waiter held the lock")
                .allMatch(millis -> millis < HAND_OFF_BOUND_MILLIS);
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void whenTheMasterFailsOverThenQueuedFairWaitersGetTheLockPromptlyInQueueOrder() throws Exception {
        String name = "failover-fair-" + run;
        RedisLock held = holder.getFairLock(name);
        long owner = RedisLock.newOwnerId();
        assertThat(held.tryLock(0, LEASE_SECONDS, TimeUnit.SECONDS, owner)).isTrue();
        String queue = "redisson_lock_queue:{" + name + "}";
        RedisLock fair = waiting.getFairLock(name);
        List<Future<Long>> acquired = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            acquired.add(pool.submit(() -> acquireBriefly(fair)));
            long queued = i + 1;
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> Long.parseLong(cluster.masterOf(queue).command("LLEN", queue)) == queued);
        }

        failOver(name);
        long released = release(held, owner);

        List<Long> handOffs = new ArrayList<>();
        for (Future<Long> at : acquired) {
            handOffs.add(TimeUnit.NANOSECONDS.toMillis(at.get(WAIT_SECONDS + 15, TimeUnit.SECONDS) - released));
        }
        System.out.println("[fault] cluster failover, fair waiters held the lock ms after the release: " + handOffs);
        assertThat(handOffs).as("queue order").isSorted();
        assertThat(handOffs.get(2))
                .as("ms from the release until the last of three queued waiters held the lock")
                .isLessThan(HAND_OFF_BOUND_MILLIS);
    }

    private LockClient connect() {
        LockClient client = LockClient.create(LockClientOptions.builder()
                .cluster(cluster.uris())
                .commandTimeout(Duration.ofSeconds(2))
                // Longer than the failover (the fixture's cluster-node-timeout is 5 s): a queued fair
                // waiter that cannot reach Redis for longer than this loses its place, by design.
                .fairLockWaitTimeout(FAIR_WAITER_TIMEOUT)
                .build());
        // The first connection of a JVM loads many classes, which takes seconds on a loaded machine.
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> client.ping() != null);
        return client;
    }

    /** @return when the lock was held (nanoTime); it is released again at once */
    private static long acquireBriefly(RedisLock lock) throws InterruptedException {
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(WAIT_SECONDS, 10, TimeUnit.SECONDS, owner))
                .as("waiter acquired")
                .isTrue();
        long at = System.nanoTime();
        lock.unlock(owner);
        return at;
    }

    /** Waits until the channel's master counts a sharded subscriber (the waiting client). */
    private void awaitShardedSubscriber(String channel) {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> lastNumber(cluster.masterOf(channel).command("PUBSUB", "SHARDNUMSUB", channel)) == 1);
    }

    /**
     * Kills the master serving the lock once its replica has everything, and waits until the
     * replica serves the slot.
     */
    private void failOver(String name) {
        int index = cluster.masterIndexOf(name);
        RedisServer master = cluster.masters().get(index);
        RedisServer replica = cluster.replicasOf(index).get(0);
        long written = offset(master, "master_repl_offset");
        await().atMost(Duration.ofSeconds(10)).until(() -> offset(replica, "slave_repl_offset") >= written);
        master.stop();
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> replica.command("ROLE").startsWith("master")
                        && replica.command("CLUSTER", "INFO").contains("cluster_state:ok"));
    }

    /** Unlocks once the holder's client reaches the promoted replica. @return when (nanoTime) */
    private static long release(RedisLock held, long owner) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .ignoreException(LockException.class)
                .until(() -> {
                    held.unlock(owner);
                    return true;
                });
        return System.nanoTime();
    }

    private static long offset(RedisServer server, String field) {
        for (String line : server.command("INFO", "replication").split("\n")) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(field.length() + 1).trim());
            }
        }
        return -1;
    }

    private static long lastNumber(String reply) {
        String[] parts = reply.trim().split("\\s+");
        return Long.parseLong(parts[parts.length - 1]);
    }
}
