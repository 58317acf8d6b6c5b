package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A waiter whose subscription failed, or was lost with its connection, still hears the next
 * release: subscriptions are retried, and every re-subscription wakes the waiters to re-check.
 * Each test has a server of its own, since channel permissions are revoked for every client.
 */
@Tag("fault")
class SubscriptionFaultTests {

    /** The holder's lease: a waiter that misses the release sleeps this long. */
    private static final long LEASE_SECONDS = 30;

    /** How soon after the release the waiter must hold the lock (generous for a loaded machine). */
    private static final Duration WAKE_BOUND = Duration.ofSeconds(5);

    private RedisServer redis;
    private LockClient holderClient;
    private LockClient waiterClient;
    private ExecutorService pool;
    private String name;

    @BeforeEach
    void setUp() {
        redis = RedisServers.start();
        holderClient = LockClient.create(redis.uri());
        waiterClient = LockClient.create(redis.uri());
        pool = Executors.newCachedThreadPool();
        name = "subscription-fault:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        waiterClient.close();
        holderClient.close();
        redis.stop();
    }

    @Test
    void whenSubscribeIsRefusedThenItIsRetriedAndTheWaiterWakesOnRelease() throws Exception {
        RedisLock holder = holderClient.getLock(name);
        holder.lock(LEASE_SECONDS, TimeUnit.SECONDS);
        redis.command("ACL", "LOG", "RESET");
        redis.command("ACL", "SETUSER", "default", "resetchannels");
        Future<Long> acquiredAt = waitInBackground();
        awaitSubscribeRefused();
        awaitListed();
        redis.command("ACL", "SETUSER", "default", "allchannels");

        long released = System.nanoTime();
        holder.unlock();

        assertWokenPromptly(acquiredAt, released);
    }

    @Test
    void whenTheSubscriptionIsLostAndItsRestoreRefusedThenTheWaiterStillWakesOnRelease() throws Exception {
        RedisLock holder = holderClient.getLock(name);
        holder.lock(LEASE_SECONDS, TimeUnit.SECONDS);
        Future<Long> acquiredAt = waitInBackground();
        awaitListed();
        await().atMost(Duration.ofSeconds(10)).until(() -> numsub() == 1);
        // Refuse channels and drop the waiter's pub/sub connection (Redis 7 drops it by itself):
        // Lettuce reconnects, and its automatic re-subscription is refused.
        redis.command("ACL", "LOG", "RESET");
        redis.command("ACL", "SETUSER", "default", "resetchannels");
        redis.command("CLIENT", "KILL", "TYPE", "pubsub");
        awaitSubscribeRefused();
        redis.command("ACL", "SETUSER", "default", "allchannels");

        long released = System.nanoTime();
        holder.unlock();

        assertWokenPromptly(acquiredAt, released);
    }

    /** Redis logs every refused SUBSCRIBE, naming the channel. */
    private void awaitSubscribeRefused() {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> redis.command("ACL", "LOG").contains("{" + name + "}"));
    }

    private Future<Long> waitInBackground() {
        return pool.submit(() -> {
            RedisLock waiter = waiterClient.getLock(name);
            assertThat(waiter.tryLock(60, LEASE_SECONDS, TimeUnit.SECONDS))
                    .as("waiter acquired")
                    .isTrue();
            long at = System.nanoTime();
            waiter.unlock();
            return at;
        });
    }

    private void awaitListed() {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> "1".equals(redis.command("SCARD", "distlock_lock_waiters:{" + name + "}")));
    }

    private long numsub() {
        String reply = redis.command("PUBSUB", "NUMSUB", "redisson_lock__channel:{" + name + "}");
        String[] parts = reply.trim().split("\\s+");
        return Long.parseLong(parts[parts.length - 1]);
    }

    private void assertWokenPromptly(Future<Long> acquiredAt, long released) throws Exception {
        long wokenAfterMillis =
                TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(LEASE_SECONDS + 15, TimeUnit.SECONDS) - released);
        assertThat(wokenAfterMillis)
                .as("ms from the release until the waiter held the lock")
                .isLessThan(WAKE_BOUND.toMillis());
    }
}
