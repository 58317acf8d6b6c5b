package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RLock;

class FairLockRedissonInteropTests {

    private static final String NAME = "fair-interop";
    private static final String QUEUE = "redisson_lock_queue:{fair-interop}";

    private static RedissonInterop redisson;

    private final RedisServer redis = RedisServers.shared();
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private LockClient client;

    @BeforeAll
    static void startRedisson() {
        redisson = new RedissonInterop(RedisServers.shared());
    }

    @AfterAll
    static void stopRedisson() throws InterruptedException {
        redisson.close();
    }

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
        client = LockClient.create(redis.uri());
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        executor.shutdownNow();
        executor.awaitTermination(5, TimeUnit.SECONDS);
        client.close();
    }

    private long queueLength() {
        return Long.parseLong(redis.command("LLEN", QUEUE));
    }

    @Test
    void shouldBeBlockedByARedissonHolderAndGetTheLockWhenItUnlocks() throws Exception {
        RLock theirs = redisson.client().getFairLock(NAME);
        redisson.call(() -> {
            theirs.lock();
            return null;
        });
        RedisLock ours = client.getFairLock(NAME);
        assertThat(ours.tryLock()).isFalse();
        assertThat(ours.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
        Future<Long> waiter = executor.submit(() -> {
            RedisLock lock = client.getFairLock(NAME);
            if (!lock.tryLock(10, TimeUnit.SECONDS)) {
                return -1L;
            }
            long at = System.nanoTime();
            lock.unlock();
            return at;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1);
        long unlockedAt = System.nanoTime();
        redisson.call(() -> {
            theirs.unlock();
            return null;
        });
        long acquiredAt = waiter.get(10, TimeUnit.SECONDS);
        assertThat(acquiredAt).isPositive();
        // Redisson's unlock told our waiter on its own channel.
        assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt - unlockedAt)).isLessThan(2000);
        assertThat(TestKeys.lockKeys(redis)).isEmpty();
    }

    @Test
    void shouldBlockARedissonWaiterAndHandTheLockToItOnUnlock() throws Exception {
        RedisLock ours = client.getFairLock(NAME);
        ours.lock();
        RLock theirs = redisson.client().getFairLock(NAME);
        assertThat(redisson.call(() -> theirs.tryLock(200, TimeUnit.MILLISECONDS)))
                .isFalse();
        Future<Boolean> waiter = redisson.submit(() -> theirs.tryLock(10, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1);
        long unlockedAt = System.nanoTime();
        ours.unlock();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - unlockedAt))
                .isLessThan(2000);
        assertThat(ours.isLocked()).isTrue();
        assertThat(ours.tryLock()).isFalse();
        redisson.call(() -> {
            theirs.unlock();
            return null;
        });
        assertThat(ours.tryLock()).isTrue();
        ours.unlock();
    }

    @Test
    void shouldServeAMixedQueueWithoutStalling() throws Exception {
        RedisLock ours = client.getFairLock(NAME);
        ours.lock();
        RLock theirs = redisson.client().getFairLock(NAME);
        Future<Boolean> redissonWaiter = redisson.submit(() -> {
            if (!theirs.tryLock(10, TimeUnit.SECONDS)) {
                return false;
            }
            Thread.sleep(100);
            theirs.unlock();
            return true;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1);
        Future<Long> ourWaiter = executor.submit(() -> {
            RedisLock lock = client.getFairLock(NAME);
            if (!lock.tryLock(10, TimeUnit.SECONDS)) {
                return -1L;
            }
            long at = System.nanoTime();
            lock.unlock();
            return at;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 2);
        long start = System.nanoTime();
        ours.unlock();
        assertThat(redissonWaiter.get(10, TimeUnit.SECONDS)).isTrue();
        long acquiredAt = ourWaiter.get(10, TimeUnit.SECONDS);
        assertThat(acquiredAt).isPositive();
        long elapsed = TimeUnit.NANOSECONDS.toMillis(acquiredAt - start);
        // A Redisson acquisition shortens every queued deadline by its thread wait time (Redisson's own rule), so
        // our waiter may be purged and re-queue, but within one renewal period (a third of the 5 s waiter timeout).
        assertThat(elapsed).isLessThan(3000);
        await().atMost(Duration.ofSeconds(2))
                .until(() -> TestKeys.lockKeys(redis).isEmpty());
    }
}
