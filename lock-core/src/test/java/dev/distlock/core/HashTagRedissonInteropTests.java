package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;

/**
 * Outside a cluster, names whose braces form no hash tag keep Redisson's exact companion names, so
 * both libraries still meet on the same channel and hold-timeout keys.
 */
class HashTagRedissonInteropTests {

    private static RedissonInterop redisson;

    private final RedisServer redis = RedisServers.shared();
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
    void tearDown() {
        client.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"x{", "a{}", "}{", "{}z"})
    void whenDistlockReleasesABracedNameThenARedissonWaiterIsWokenAtOnce(String name) throws Exception {
        RedisLock ours = client.getLock(name);
        long owner = RedisLock.newOwnerId();
        // A 30 s lease: a Redisson waiter that the release message did not reach would sleep until it ends.
        assertThat(ours.tryLock(0, 30, TimeUnit.SECONDS, owner)).isTrue();
        RLock theirs = redisson.client().getLock(name);
        Future<Boolean> waiter = redisson.submit(() -> theirs.tryLock(20, 30, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> redis.command("PUBSUB", "NUMSUB", "redisson_lock__channel:" + name)
                        .endsWith("1"));
        long released = System.nanoTime();
        ours.unlock(owner);
        assertThat(waiter.get(15, TimeUnit.SECONDS)).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(10));
        redisson.call(() -> {
            theirs.unlock();
            return null;
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"x{", "a{}"})
    void whenRedissonHoldsTheReadLockOfABracedNameThenDistlockKeepsItAndExcludesItsWriter(String name)
            throws Exception {
        RReadWriteLock theirs = redisson.client().getReadWriteLock(name);
        redisson.call(() -> theirs.readLock().tryLock(0, 30, TimeUnit.SECONDS));
        RedisReadWriteLock ours = client.getReadWriteLock(name);
        long reader = RedisLock.newOwnerId();
        assertThat(ours.readLock().tryLock(0, 30, TimeUnit.SECONDS, reader)).isTrue();
        ours.readLock().unlock(reader);
        // Distlock's sweep must find Redisson's hold timeout under Redisson's own name.
        assertThat(ours.writeLock().tryLock(0, 30, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                .isFalse();
        redisson.call(() -> {
            theirs.readLock().unlock();
            return null;
        });
        long writer = RedisLock.newOwnerId();
        assertThat(ours.writeLock().tryLock(0, 30, TimeUnit.SECONDS, writer)).isTrue();
        ours.writeLock().unlock(writer);
    }
}
