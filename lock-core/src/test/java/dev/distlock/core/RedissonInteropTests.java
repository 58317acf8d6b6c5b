package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** A Redisson client and a Distlock client on one server exclude each other and wake each other. */
class RedissonInteropTests {

    private RedisServer redis;
    private RedissonClient redisson;
    private LockClient distlock;
    private ExecutorService pool;
    private String name;

    @BeforeEach
    void setUp() {
        redis = RedisServers.shared();
        Config config = new Config();
        config.useSingleServer().setAddress(redis.uri());
        redisson = Redisson.create(config);
        distlock = LockClient.create(redis.uri());
        pool = Executors.newCachedThreadPool();
        name = "interop:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        distlock.close();
        redisson.shutdown();
    }

    @Test
    void shouldWriteRedissonsLayout() throws Exception {
        RedisLock lock = distlock.getLock(name);
        lock.lock(30, TimeUnit.SECONDS);
        assertThat(redis.command(
                        "HGET",
                        name,
                        distlock.getId() + ":" + Thread.currentThread().getId()))
                .isEqualTo("1");
        assertThat(redisson.getLock(name).isLocked()).isTrue();
        assertThat(redisson.getLock(name).remainTimeToLive()).isPositive();
        lock.unlock();
    }

    @Test
    void shouldBlockDistlockWhileRedissonHoldsAndWakeOnRedissonUnlock() throws Exception {
        RLock theirs = redisson.getLock(name);
        theirs.lock(60, TimeUnit.SECONDS);
        assertThat(pool.submit(() -> distlock.getLock(name).tryLock()).get()).isFalse();
        long latency = handOff(theirs::unlock, () -> {
            RedisLock ours = distlock.getLock(name);
            boolean got = ours.tryLock(20, 30, TimeUnit.SECONDS);
            ours.unlock();
            return got;
        });
        assertThat(latency).isLessThan(2000);
    }

    @Test
    void shouldBlockRedissonWhileDistlockHoldsAndWakeOnDistlockUnlock() throws Exception {
        RedisLock ours = distlock.getLock(name);
        ours.lock(60, TimeUnit.SECONDS);
        assertThat(pool.submit(() -> redisson.getLock(name).tryLock()).get()).isFalse();
        long latency = handOff(ours::unlock, () -> {
            RLock theirs = redisson.getLock(name);
            boolean got = theirs.tryLock(20, 30, TimeUnit.SECONDS);
            theirs.unlock();
            return got;
        });
        assertThat(latency).isLessThan(2000);
    }

    @Test
    void shouldKeepRedissonsLayoutForEveryMemberOfAMultiLock() throws Exception {
        List<String> members = List.of(name + "/1", name + "/2", name + "/3");
        MultiLock multi = multiLock(members);
        multi.lock(30, TimeUnit.SECONDS);
        for (String member : members) {
            assertThat(redis.command(
                            "HGET",
                            member,
                            distlock.getId() + ":" + Thread.currentThread().getId()))
                    .as("hold count of member %s", member)
                    .isEqualTo("1");
            assertThat(redisson.getLock(member).remainTimeToLive()).isPositive();
            assertThat(pool.submit(() -> redisson.getLock(member).tryLock()).get())
                    .as("Redisson on member %s", member)
                    .isFalse();
        }
        multi.unlock();
        assertThat(members).noneMatch(member -> redisson.getLock(member).isLocked());
    }

    @Test
    void shouldBlockAMultiLockWhileRedissonHoldsAMemberAndWakeOnRedissonUnlock() throws Exception {
        List<String> members = List.of(name + "/1", name + "/2", name + "/3");
        RLock theirs = redisson.getLock(members.get(1));
        theirs.lock(60, TimeUnit.SECONDS);
        MultiLock multi = multiLock(members);
        assertThat(pool.submit(() -> multi.tryLock()).get()).isFalse();
        assertThat(distlock.getLock(members.get(0)).isLocked())
                .as("a member the refused multi lock did not need to wait for")
                .isFalse();
        long latency = handOff(theirs::unlock, () -> {
            boolean got = multi.tryLock(20, 30, TimeUnit.SECONDS);
            multi.unlock();
            return got;
        });
        assertThat(latency).isLessThan(2000);
    }

    @Test
    void shouldBlockRedissonWhileAMultiLockHoldsAMemberAndWakeOnTheMultiLocksUnlock() throws Exception {
        List<String> members = List.of(name + "/1", name + "/2", name + "/3");
        MultiLock multi = multiLock(members);
        multi.lock(60, TimeUnit.SECONDS);
        assertThat(pool.submit(() -> redisson.getLock(members.get(2)).tryLock()).get())
                .isFalse();
        long latency = handOff(multi::unlock, () -> {
            RLock theirs = redisson.getLock(members.get(2));
            boolean got = theirs.tryLock(20, 30, TimeUnit.SECONDS);
            theirs.unlock();
            return got;
        });
        assertThat(latency).isLessThan(2000);
    }

    private MultiLock multiLock(List<String> members) {
        return MultiLock.of(members.stream().map(distlock::getLock).toArray(RedisLock[]::new));
    }

    /** Starts the waiter, releases, and returns ms from release to the waiter holding the lock. */
    private long handOff(Runnable release, java.util.concurrent.Callable<Boolean> waiter) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        AtomicLong acquiredAt = new AtomicLong();
        Future<Boolean> result = pool.submit(() -> {
            started.countDown();
            boolean got = waiter.call();
            acquiredAt.compareAndSet(0, System.nanoTime());
            return got;
        });
        started.await();
        org.awaitility.Awaitility.await()
                .pollDelay(java.time.Duration.ofMillis(300))
                .until(() -> !result.isDone());
        long releasedAt = System.nanoTime();
        release.run();
        assertThat(result.get(10, TimeUnit.SECONDS)).isTrue();
        return TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - releasedAt);
    }
}
