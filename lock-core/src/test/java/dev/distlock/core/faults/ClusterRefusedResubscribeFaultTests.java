package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
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
 * On a Cluster, a waiting client's sharded pub/sub connection is dropped while its channel
 * permission is revoked, so the re-subscription after the reconnect is refused ({@code NOPERM}).
 * Once the permission is back, the subscription must be made again and a release must wake the
 * waiters at once, not at their periodic retry. Each test prints its hand-off times with {@code [fault]}.
 */
@Tag("fault")
class ClusterRefusedResubscribeFaultTests {

    /** The holder's lease: far longer than the test, so only a wake-up ends a wait. */
    private static final long LEASE_SECONDS = 120;

    /** The waiters' wait: far longer than any prompt hand-off. */
    private static final long WAIT_SECONDS = 70;

    /** How soon after the release each waiter in turn must hold the lock: generous for a loaded machine. */
    private static final long HAND_OFF_BOUND_MILLIS = 5_000;

    /** A fair waiter's periodic retry is a third of this: far longer than a prompt hand-off. */
    private static final Duration FAIR_WAITER_TIMEOUT = Duration.ofSeconds(60);

    private final String run = UUID.randomUUID().toString();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private RedisCluster cluster;
    private LockClient holder;
    private LockClient waiting;

    @BeforeEach
    void startCluster() {
        RedisServers.assumeRedis7("sharded pub/sub");
        cluster = RedisCluster.start(3);
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
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void whenTheResubscribeIsRefusedThenWaitersGetTheReleasedLockPromptlyOncePermitted() throws Exception {
        String name = "refused-resubscribe-" + run;
        RedisLock held = holder.getLock(name);
        long owner = RedisLock.newOwnerId();
        assertThat(held.tryLock(0, LEASE_SECONDS, TimeUnit.SECONDS, owner)).isTrue();
        RedisLock contended = waiting.getLock(name);
        List<Future<Long>> acquired = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            acquired.add(pool.submit(() -> acquireBriefly(contended)));
        }

        assertHandOffsPrompt(name, held, owner, acquired, "waiters");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void whenTheResubscribeIsRefusedThenQueuedFairWaitersGetTheReleasedLockPromptlyOncePermitted() throws Exception {
        String name = "refused-resubscribe-fair-" + run;
        RedisLock held = holder.getFairLock(name);
        long owner = RedisLock.newOwnerId();
        assertThat(held.tryLock(0, LEASE_SECONDS, TimeUnit.SECONDS, owner)).isTrue();
        String queue = "redisson_lock_queue:{" + name + "}";
        RedisLock fair = waiting.getFairLock(name);
        List<Future<Long>> acquired = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            acquired.add(pool.submit(() -> acquireBriefly(fair)));
            long queued = i + 1;
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> Long.parseLong(cluster.masterOf(queue).command("LLEN", queue)) == queued);
        }

        assertHandOffsPrompt(name, held, owner, acquired, "fair waiters");
    }

    private void assertHandOffsPrompt(String name, RedisLock held, long owner, List<Future<Long>> acquired, String who)
            throws Exception {
        String channel = "redisson_lock__channel:{" + name + "}";
        RedisServer node = cluster.masterOf(channel);
        // The waiting client subscribes the lock's channel (a fair lock also its client-specific one).
        await().atMost(Duration.ofSeconds(10)).until(() -> node.command("PUBSUB", "SHARDCHANNELS", "*" + name + "*")
                .contains(channel));

        node.command("ACL", "LOG", "RESET");
        node.command("ACL", "SETUSER", "default", "resetchannels");
        // Redis 7 drops a subscriber whose channel permission is revoked; kill it anyway, for any version.
        node.command("CLIENT", "KILL", "TYPE", "pubsub");
        // Redis logs every refused SSUBSCRIBE, naming the channel: the reconnect's re-subscription was refused.
        await().atMost(Duration.ofSeconds(15))
                .until(() -> node.command("ACL", "LOG").contains(channel));
        node.command("ACL", "SETUSER", "default", "allchannels");

        held.unlock(owner);
        long released = System.nanoTime();

        List<Long> handOffs = new ArrayList<>();
        for (Future<Long> at : acquired) {
            handOffs.add(TimeUnit.NANOSECONDS.toMillis(at.get(WAIT_SECONDS + 15, TimeUnit.SECONDS) - released));
        }
        System.out.println(
                "[fault] cluster refused re-subscribe, " + who + " held the lock ms after the release: " + handOffs);
        assertThat(handOffs)
                .as("ms from the release until each waiter held the lock")
                .allMatch(millis -> millis < HAND_OFF_BOUND_MILLIS);
    }

    private LockClient connect() {
        LockClient client = LockClient.create(LockClientOptions.builder()
                .cluster(cluster.uris())
                .commandTimeout(Duration.ofSeconds(2))
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
}
