package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisCluster;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * On a Redis 7+ Cluster Redisson waits on sharded channels (SSUBSCRIBE) and its scripts SPUBLISH;
 * Distlock does the same there, so a release by either library wakes the other's waiters at once
 * rather than after the holder's whole lease.
 */
class ShardedPubSubTests {

    /** The holder's lease: a waiter that misses the release sleeps about this long. */
    private static final long LEASE_SECONDS = 30;

    /** How soon after the release the waiter must hold the lock (generous for a loaded machine). */
    private static final long WAKE_BOUND_MILLIS = 5000;

    private static RedisCluster cluster;
    private static RedissonClient redisson;
    private static LockClient distlock;

    /** Redisson's locks belong to the calling thread: one thread holds, one waits. */
    private final ExecutorService redissonHolder = Executors.newSingleThreadExecutor();

    private final ExecutorService waiters = Executors.newCachedThreadPool();
    private String name;

    @BeforeAll
    static void startCluster() {
        RedisServers.assumeRedis7("sharded pub/sub");
        cluster = RedisCluster.start(3);
        Config config = new Config();
        config.useClusterServers().addNodeAddress(cluster.uris());
        redisson = Redisson.create(config);
        distlock = LockClient.create(
                LockClientOptions.builder().cluster(cluster.uris()).build());
    }

    @AfterAll
    static void stopCluster() {
        if (cluster == null) {
            return;
        }
        distlock.close();
        redisson.shutdown();
        cluster.close();
    }

    @BeforeEach
    void setUp() {
        name = "sharded:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        redissonHolder.shutdownNow();
        waiters.shutdownNow();
        redissonHolder.awaitTermination(5, TimeUnit.SECONDS);
        waiters.awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void whenDistlockReleasesThenARedissonWaiterWakesPromptly() throws Exception {
        RedisLock ours = distlock.getLock(name);
        ours.lock(LEASE_SECONDS, TimeUnit.SECONDS);
        RLock theirs = redisson.getLock(name);
        Future<Long> acquiredAt =
                waiters.submit(acquire(() -> theirs.tryLock(60, LEASE_SECONDS, TimeUnit.SECONDS), theirs::unlock));
        awaitSubscribers("redisson_lock__channel:{" + name + "}", 1);

        long released = System.nanoTime();
        ours.unlock();

        assertWokenPromptly(acquiredAt, released);
    }

    @Test
    void whenRedissonUnlocksThenADistlockWaiterWakesPromptly() throws Exception {
        RLock theirs = redisson.getLock(name);
        redissonHolder
                .submit(() -> theirs.lock(LEASE_SECONDS, TimeUnit.SECONDS))
                .get(30, TimeUnit.SECONDS);
        RedisLock ours = distlock.getLock(name);
        Future<Long> acquiredAt =
                waiters.submit(acquire(() -> ours.tryLock(60, LEASE_SECONDS, TimeUnit.SECONDS), ours::unlock));
        awaitWaiting("redisson_lock__channel:{" + name + "}");

        long released = System.nanoTime();
        redissonHolder.submit(theirs::unlock).get(30, TimeUnit.SECONDS);

        assertWokenPromptly(acquiredAt, released);
    }

    @Test
    void whenDistlockReleasesAWriteLockThenARedissonReaderWakesPromptly() throws Exception {
        RedisReadWriteLock ours = distlock.getReadWriteLock(name);
        ours.writeLock().lock(LEASE_SECONDS, TimeUnit.SECONDS);
        RReadWriteLock theirs = redisson.getReadWriteLock(name);
        Future<Long> acquiredAt = waiters.submit(acquire(
                () -> theirs.readLock().tryLock(60, LEASE_SECONDS, TimeUnit.SECONDS), theirs.readLock()::unlock));
        awaitSubscribers("redisson_rwlock:{" + name + "}", 1);

        long released = System.nanoTime();
        ours.writeLock().unlock();

        assertWokenPromptly(acquiredAt, released);
    }

    @Test
    void whenRedissonReleasesAWriteLockThenADistlockReaderWakesPromptly() throws Exception {
        RReadWriteLock theirs = redisson.getReadWriteLock(name);
        redissonHolder
                .submit(() -> theirs.writeLock().lock(LEASE_SECONDS, TimeUnit.SECONDS))
                .get(30, TimeUnit.SECONDS);
        RedisReadWriteLock ours = distlock.getReadWriteLock(name);
        Future<Long> acquiredAt = waiters.submit(
                acquire(() -> ours.readLock().tryLock(60, LEASE_SECONDS, TimeUnit.SECONDS), ours.readLock()::unlock));
        awaitWaiting("redisson_rwlock:{" + name + "}");

        long released = System.nanoTime();
        redissonHolder.submit(() -> theirs.writeLock().unlock()).get(30, TimeUnit.SECONDS);

        assertWokenPromptly(acquiredAt, released);
    }

    @Test
    void whenDistlockReleasesAFairLockThenTheRedissonHeadOfQueueWakesPromptly() throws Exception {
        RedisLock ours = distlock.getFairLock(name);
        ours.lock(LEASE_SECONDS, TimeUnit.SECONDS);
        RLock theirs = redisson.getFairLock(name);
        Future<Long> acquiredAt =
                waiters.submit(acquire(() -> theirs.tryLock(60, LEASE_SECONDS, TimeUnit.SECONDS), theirs::unlock));
        String queue = "redisson_lock_queue:{" + name + "}";
        await().atMost(Duration.ofSeconds(10))
                .until(() -> "1".equals(cluster.masterOf(queue).command("LLEN", queue)));
        String head = cluster.masterOf(queue).command("LINDEX", queue, "0");
        awaitSubscribers("redisson_lock__channel:{" + name + "}:" + head, 1);

        long released = System.nanoTime();
        ours.unlock();

        assertWokenPromptly(acquiredAt, released);
    }

    @Test
    void whenWaitingOnAClusterThenSubscribesWithSsubscribeOnTheSlotOwningMaster() throws Exception {
        RLock theirs = redisson.getLock(name);
        redissonHolder
                .submit(() -> theirs.lock(LEASE_SECONDS, TimeUnit.SECONDS))
                .get(30, TimeUnit.SECONDS);
        RedisLock ours = distlock.getLock(name);
        Future<Long> acquiredAt =
                waiters.submit(acquire(() -> ours.tryLock(60, LEASE_SECONDS, TimeUnit.SECONDS), ours::unlock));
        String channel = "redisson_lock__channel:{" + name + "}";
        // Only Distlock waits, so the one sharded subscriber of the channel on its master is ours.
        awaitSubscribers(channel, 1);
        assertThat(cluster.masters().stream()
                        .mapToLong(node -> count(node.command("PUBSUB", "NUMSUB", channel)))
                        .sum())
                .as("plain subscribers")
                .isZero();
        redissonHolder.submit(theirs::unlock).get(30, TimeUnit.SECONDS);
        acquiredAt.get(LEASE_SECONDS + 15, TimeUnit.SECONDS);
    }

    private static Callable<Long> acquire(Callable<Boolean> tryLock, Runnable unlock) {
        return () -> {
            assertThat(tryLock.call()).as("waiter acquired").isTrue();
            long at = System.nanoTime();
            unlock.run();
            return at;
        };
    }

    /** Waits until the channel's master counts this many sharded subscribers. */
    private static void awaitSubscribers(String channel, long expected) {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count(cluster.masterOf(channel).command("PUBSUB", "SHARDNUMSUB", channel)) == expected);
    }

    /** Waits until someone listens on the channel, sharded on its master or plain on any node. */
    private static void awaitWaiting(String channel) {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count(cluster.masterOf(channel).command("PUBSUB", "SHARDNUMSUB", channel))
                                + cluster.masters().stream()
                                        .mapToLong(node -> count(node.command("PUBSUB", "NUMSUB", channel)))
                                        .sum()
                        > 0);
    }

    private static long count(String reply) {
        String[] parts = reply.trim().split("\\s+");
        return Long.parseLong(parts[parts.length - 1]);
    }

    private static void assertWokenPromptly(Future<Long> acquiredAt, long released) throws Exception {
        long wokenAfterMillis =
                TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(LEASE_SECONDS + 15, TimeUnit.SECONDS) - released);
        assertThat(wokenAfterMillis)
                .as("ms from the release until the waiter held the lock")
                .isLessThan(WAKE_BOUND_MILLIS);
    }
}
