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
import org.redisson.api.RReadWriteLock;

class ReadWriteLockRedissonInteropTests {

    private static final String NAME = "rw-interop";

    private static RedissonInterop redisson;

    private final RedisServer redis = RedisServers.shared();
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private LockClient client;
    private RReadWriteLock theirs;
    private RedisReadWriteLock ours;

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
        theirs = redisson.client().getReadWriteLock(NAME);
        ours = client.getReadWriteLock(NAME);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        executor.shutdownNow();
        executor.awaitTermination(5, TimeUnit.SECONDS);
        client.close();
    }

    private <T> T onOurThread(java.util.concurrent.Callable<T> call) throws Exception {
        return executor.submit(call).get(30, TimeUnit.SECONDS);
    }

    @Test
    void shouldShareReadsWithRedissonButExcludeWriters() throws Exception {
        redisson.call(() -> {
            theirs.readLock().lock();
            return null;
        });
        assertThat(ours.readLock().tryLock()).isTrue();
        assertThat(onOurThread(() -> ours.writeLock().tryLock(200, TimeUnit.MILLISECONDS)))
                .isFalse();
        // Our unlock recomputes the TTL from Redisson's read hold, which keeps the lock.
        ours.readLock().unlock();
        assertThat(redis.command("HGET", NAME, "mode")).isEqualTo("read");
        assertThat(Long.parseLong(redis.command("PTTL", NAME))).isGreaterThan(20_000);
        assertThat(onOurThread(() -> ours.writeLock().tryLock())).isFalse();
        redisson.call(() -> {
            theirs.readLock().unlock();
            return null;
        });
        assertThat(onOurThread(() -> {
                    boolean got = ours.writeLock().tryLock();
                    ours.writeLock().unlock();
                    return got;
                }))
                .isTrue();
        assertThat(TestKeys.lockKeys(redis)).isEmpty();
    }

    @Test
    void shouldBlockRedissonWhileWritingAndWakeItsReaderOnUnlock() throws Exception {
        ours.writeLock().lock();
        assertThat(redisson.call(() -> theirs.readLock().tryLock(200, TimeUnit.MILLISECONDS)))
                .isFalse();
        assertThat(redisson.call(() -> theirs.writeLock().tryLock(200, TimeUnit.MILLISECONDS)))
                .isFalse();
        Future<Boolean> reader = redisson.submit(() -> theirs.readLock().tryLock(10, TimeUnit.SECONDS));
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !reader.isDone());
        long unlockedAt = System.nanoTime();
        ours.writeLock().unlock();
        assertThat(reader.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - unlockedAt))
                .isLessThan(2000);
        assertThat(onOurThread(() -> ours.writeLock().tryLock())).isFalse();
        redisson.call(() -> {
            theirs.readLock().unlock();
            return null;
        });
        assertThat(TestKeys.lockKeys(redis)).isEmpty();
    }

    @Test
    void shouldBeBlockedByARedissonWriterAndWokenByItsUnlock() throws Exception {
        redisson.call(() -> {
            theirs.writeLock().lock();
            return null;
        });
        assertThat(ours.readLock().tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(ours.writeLock().tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
        Future<Long> reader = executor.submit(() -> {
            RedisLock read = client.getReadWriteLock(NAME).readLock();
            if (!read.tryLock(10, TimeUnit.SECONDS)) {
                return -1L;
            }
            long at = System.nanoTime();
            read.unlock();
            return at;
        });
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !reader.isDone());
        long unlockedAt = System.nanoTime();
        redisson.call(() -> {
            theirs.writeLock().unlock();
            return null;
        });
        long enteredAt = reader.get(10, TimeUnit.SECONDS);
        assertThat(enteredAt).isPositive();
        assertThat(TimeUnit.NANOSECONDS.toMillis(enteredAt - unlockedAt)).isLessThan(2000);
        assertThat(TestKeys.lockKeys(redis)).isEmpty();
    }
}
