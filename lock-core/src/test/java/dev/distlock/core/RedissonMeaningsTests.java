package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;

/**
 * The same calls made through Redisson and through Distlock, side by side on one server: where the
 * migration page says the meanings are the same, the outcomes are; where it lists a difference,
 * this test pins it, so that the page cannot drift from either library.
 */
class RedissonMeaningsTests {

    private RedisServer redis;
    private RedissonInterop redisson;
    private LockClient distlock;
    private LockClient holderClient;
    private String name;

    @BeforeEach
    void setUp() {
        redis = RedisServers.shared();
        redisson = new RedissonInterop(redis);
        distlock = LockClient.create(redis.uri());
        holderClient = LockClient.create(redis.uri());
        name = "meanings:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        distlock.close();
        holderClient.close();
        redisson.close();
    }

    @Test
    void whenTheWaitIsNegativeThenBothTryOnceAndReturnFalse() throws Exception {
        long holder = RedisLock.newOwnerId();
        assertThat(holderClient.getLock(name).tryLock(0, 30, TimeUnit.SECONDS, holder))
                .isTrue();
        long start = System.nanoTime();
        boolean theirs = redisson.call(() -> redisson.client().getLock(name).tryLock(-1, 10, TimeUnit.SECONDS));
        boolean ours = distlock.getLock(name).tryLock(-1, 10, TimeUnit.SECONDS);
        assertThat(theirs).isFalse();
        assertThat(ours).isFalse();
        RLock theirMulti = redisson.client()
                .getMultiLock(redisson.client().getLock(name), redisson.client().getLock(name + ":2"));
        MultiLock ourMulti = MultiLock.of(distlock.getLock(name), distlock.getLock(name + ":2"));
        assertThat(redisson.call(() -> theirMulti.tryLock(-1, 10, TimeUnit.SECONDS)))
                .isFalse();
        assertThat(ourMulti.tryLock(-1, 10, TimeUnit.SECONDS)).isFalse();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5000);
        holderClient.getLock(name).unlock(holder);
        assertThat(redis.command("EXISTS", name + ":2"))
                .as("the multi locks let go")
                .isEqualTo("0");
    }

    @Test
    void whenAWriteLockIsReenteredThenRedissonAddsTheLeaseAndDistlockResetsIt() throws Exception {
        String theirName = name + ":redisson";
        long theirTtl = redisson.call(() -> {
            RReadWriteLock rw = redisson.client().getReadWriteLock(theirName);
            rw.writeLock().lock(10, TimeUnit.SECONDS);
            rw.writeLock().lock(10, TimeUnit.SECONDS);
            long ttl = rw.writeLock().remainTimeToLive();
            rw.writeLock().unlock();
            rw.writeLock().unlock();
            return ttl;
        });
        RedisLock ours = distlock.getReadWriteLock(name).writeLock();
        ours.lock(10, TimeUnit.SECONDS);
        ours.lock(10, TimeUnit.SECONDS);
        long ourTtl = ours.remainTimeToLive();
        ours.unlock();
        ours.unlock();
        assertThat(theirTtl).as("Redisson: 10 s added to what was left").isGreaterThan(15_000);
        assertThat(ourTtl).as("Distlock: the new lease").isBetween(5_000L, 10_000L);
    }

    @Test
    void whenANestedHoldIsUnlockedThenBothKeepTheLongerLease() throws Exception {
        String theirName = name + ":redisson";
        long theirTtl = redisson.call(() -> {
            RLock lock = redisson.client().getLock(theirName);
            lock.lock(3, TimeUnit.SECONDS);
            lock.lock(20, TimeUnit.SECONDS);
            lock.unlock();
            long ttl = lock.remainTimeToLive();
            lock.forceUnlock();
            return ttl;
        });
        RedisLock ours = distlock.getLock(name);
        ours.lock(3, TimeUnit.SECONDS);
        ours.lock(20, TimeUnit.SECONDS);
        ours.unlock();
        long ourTtl = ours.remainTimeToLive();
        ours.forceUnlock();
        assertThat(theirTtl).as("Redisson: its lock object's last lease").isGreaterThan(3_000);
        // An unlock does not say which of the owner's holds it ends (tasks sharing an owner unlock in any
        // order), so Distlock ends the one that expires first and keeps the longest lease still owed.
        assertThat(ourTtl)
                .as("Distlock: the longest lease still owed, the nested 20 s")
                .isGreaterThan(3_000L);
    }

    @Test
    void whenTheLeaseIsZeroThenRedissonUsesTheWatchdogAndDistlockRefusesIt() throws Exception {
        String theirName = name + ":redisson";
        boolean theirs = redisson.call(() -> {
            RLock lock = redisson.client().getLock(theirName);
            boolean acquired = lock.tryLock(0, 0, TimeUnit.SECONDS);
            lock.unlock();
            return acquired;
        });
        assertThat(theirs).isTrue();
        assertThatIllegalArgumentException()
                .isThrownBy(() -> distlock.getLock(name).tryLock(0, 0, TimeUnit.SECONDS))
                .withMessageContaining("'leaseTime'");
        assertThat(distlock.getLock(name).isLocked()).isFalse();
    }
}
