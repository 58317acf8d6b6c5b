package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The seed scenarios and reentrant-lock specifics beyond the contract suite. */
class ReentrantLockTests {

    private final List<String> lostLeases = new CopyOnWriteArrayList<>();
    private RedisServer redis;
    private LockClient client;
    private ExecutorService pool;

    @BeforeEach
    void setUp() {
        redis = RedisServers.shared();
        client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .watchdogTimeout(Duration.ofSeconds(3))
                .listener(new LockListener() {
                    @Override
                    public void onLeaseLost(String lockName, long ownerId) {
                        lostLeases.add(lockName);
                    }
                })
                .build());
        pool = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        client.close();
    }

    @Test
    @Tag("perf")
    void shouldRunTenThousandSequentialLockUnlockPairsOnFreshKeys() throws Exception {
        int pairs = 10_000;
        String prefix = "seq:" + UUID.randomUUID() + ":";
        for (int i = 0; i < pairs; i++) {
            RedisLock lock = client.getLock(prefix + i);
            assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS)).isTrue();
            lock.unlock();
        }
        assertThat(client.heldLocks()).isEmpty();
        assertThat(redis.command("EXISTS", prefix + (pairs - 1))).isEqualTo("0");
    }

    @Test
    void shouldHandOverFromOneHolderToTheNextWaiters() throws Exception {
        RedisLock a = client.getLock("handoff:" + UUID.randomUUID());
        a.lock(60, TimeUnit.SECONDS);
        List<String> order = new CopyOnWriteArrayList<>();
        CountDownLatch started = new CountDownLatch(2);
        List<Future<?>> waiters = new ArrayList<>();
        for (String who : List.of("B", "C")) {
            waiters.add(pool.submit(() -> {
                RedisLock lock = client.getLock(a.getName());
                started.countDown();
                lock.lock(60, TimeUnit.SECONDS);
                order.add(who);
                lock.unlock();
                return null;
            }));
        }
        started.await();
        await().pollDelay(Duration.ofMillis(200)).until(() -> order.isEmpty());
        a.unlock();
        for (Future<?> waiter : waiters) {
            waiter.get(10, TimeUnit.SECONDS);
        }
        assertThat(order).containsExactlyInAnyOrder("B", "C");
        assertThat(a.isLocked()).isFalse();
    }

    @Test
    void shouldHandOffToAWaiterOnAnotherClientWithinMilliseconds() throws Exception {
        int rounds = 30;
        long[] latencies = new long[rounds];
        try (LockClient other = LockClient.create(redis.uri())) {
            for (int i = 0; i < rounds; i++) {
                String name = "latency:" + UUID.randomUUID();
                RedisLock holder = client.getLock(name);
                holder.lock(60, TimeUnit.SECONDS);
                CountDownLatch waiting = new CountDownLatch(1);
                AtomicLong acquiredAt = new AtomicLong();
                Future<?> waiter = pool.submit(() -> {
                    RedisLock lock = other.getLock(name);
                    waiting.countDown();
                    lock.lock(60, TimeUnit.SECONDS);
                    acquiredAt.set(System.nanoTime());
                    lock.unlock();
                    return null;
                });
                waiting.await();
                await().pollDelay(Duration.ofMillis(50)).until(() -> !waiter.isDone());
                long releasedAt = System.nanoTime();
                holder.unlock();
                waiter.get(10, TimeUnit.SECONDS);
                latencies[i] = acquiredAt.get() - releasedAt;
            }
        }
        Arrays.sort(latencies);
        assertThat(latencies[rounds / 2]).isLessThan(TimeUnit.MILLISECONDS.toNanos(500));
    }

    @Test
    void shouldLetExactlyOneOfTwoHundredRacingThreadsWin() throws Exception {
        String name = "race:" + UUID.randomUUID();
        int threads = 200;
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger winners = new AtomicInteger();
        List<Future<?>> racers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            racers.add(pool.submit(() -> {
                go.await();
                if (client.getLock(name).tryLock(10, 60_000, TimeUnit.MILLISECONDS)) {
                    winners.incrementAndGet();
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> racer : racers) {
            racer.get(60, TimeUnit.SECONDS);
        }
        assertThat(winners.get()).isEqualTo(1);
        assertThat(redis.command("HLEN", name)).isEqualTo("1");
    }

    @Test
    void shouldLetAllOfOneHundredWaitingThreadsWinInTurn() throws Exception {
        String name = "turns:" + UUID.randomUUID();
        AtomicInteger winners = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            workers.add(pool.submit(() -> {
                RedisLock lock = client.getLock(name);
                if (lock.tryLock(30, 30, TimeUnit.SECONDS)) {
                    winners.incrementAndGet();
                    lock.unlock();
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }
        assertThat(winners.get()).isEqualTo(100);
        assertThat(client.getLock(name).isLocked()).isFalse();
    }

    @Test
    void shouldReleaseFromAnotherThreadWithExplicitOwner() throws Exception {
        RedisLock lock = client.getLock("owner:" + UUID.randomUUID());
        long owner = RedisLock.newOwnerId();
        assertThat(owner).isNegative();
        assertThat(pool.submit(() -> lock.tryLock(0, 30, TimeUnit.SECONDS, owner))
                        .get())
                .isTrue();
        assertThat(lock.isHeldBy(owner)).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        pool.submit(() -> lock.unlock(owner)).get();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void shouldReportLeaseLossFoundByWatchdog() throws Exception {
        RedisLock lock = client.getLock("lost:" + UUID.randomUUID());
        lock.lock();
        redis.command("DEL", lock.getName());
        await().atMost(Duration.ofSeconds(5)).until(() -> lostLeases.contains(lock.getName()));
        assertThat(client.heldLocks()).isEmpty();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(lock.getName());
    }

    @Test
    void shouldReportExpiredLeaseOnUnlock() throws Exception {
        RedisLock lock = client.getLock("expired:" + UUID.randomUUID());
        lock.lock(200, TimeUnit.MILLISECONDS);
        await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("expired");
        assertThat(lostLeases).contains(lock.getName());
    }

    @Test
    void shouldFailWhenItsDeadlinePassesWhileRedisIsUnreachable() {
        int deadPort = RedisServers.freePort();
        try (LockClient unreachable = LockClient.create(LockClientOptions.builder()
                .uri("redis://127.0.0.1:" + deadPort)
                .commandTimeout(Duration.ofMillis(500))
                .build())) {
            RedisLock lock = unreachable.getLock("unreachable");
            // A call that does not wait: within the command timeout.
            long start = System.nanoTime();
            assertThatThrownBy(() -> lock.tryLock(0, 10, TimeUnit.SECONDS))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("'unreachable'")
                    .hasMessageContaining("127.0.0.1:" + deadPort)
                    .hasMessageContaining("unreachable for");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2500);
            // A call that waits: Redis may come back within its wait, so it waits that long for it.
            start = System.nanoTime();
            assertThatThrownBy(() -> lock.tryLock(2, 10, TimeUnit.SECONDS))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("unreachable for");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(1900L, 5000L);
            assertThat(unreachable.heldLocks()).isEmpty();
        }
    }

    @Test
    void shouldFailWaitersWithClearErrorWhenClientCloses() throws Exception {
        String name = "closing:" + UUID.randomUUID();
        try (LockClient holder = LockClient.create(redis.uri())) {
            holder.getLock(name).lock(60, TimeUnit.SECONDS);
            Future<Throwable> waiter = pool.submit(() -> {
                try {
                    client.getLock(name).lock();
                    return null;
                } catch (LockException ex) {
                    return ex;
                }
            });
            await().pollDelay(Duration.ofMillis(300)).until(() -> !waiter.isDone());
            client.close();
            assertThat(waiter.get(5, TimeUnit.SECONDS))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("closed")
                    .hasMessageContaining(name);
        }
    }

    @Test
    void shouldInspectHoldersAndLeaseFromRedis() throws Exception {
        String name = "inspect:" + UUID.randomUUID();
        assertThat(client.inspect(name)).isEqualTo(new LockInfo(name, false, null, java.util.Map.of(), -2, 0));
        RedisLock lock = client.getLock(name);
        lock.lock(30, TimeUnit.SECONDS);
        lock.lock(30, TimeUnit.SECONDS);
        LockInfo info = client.inspect(name);
        assertThat(info.locked()).isTrue();
        assertThat(info.holders())
                .containsExactly(java.util.Map.entry(
                        client.getId() + ":" + Thread.currentThread().getId(), 2L));
        assertThat(info.remainingTtlMillis()).isBetween(1L, 30_000L);
        lock.unlock();
        lock.unlock();
    }

    @Test
    void shouldStopRenewingHoldsNoCallOfTheClientWillUnlock() throws Exception {
        for (RedisLock lock : List.of(
                client.getLock("phantom:" + UUID.randomUUID()),
                client.getFairLock("phantom-fair:" + UUID.randomUUID()))) {
            lock.lock();
            // A re-entry that ran in Redis but whose reply never arrived: Redis counts one hold more.
            redis.command(
                    "HINCRBY",
                    lock.getName(),
                    client.getId() + ":" + Thread.currentThread().getId(),
                    "1");
            lock.unlock();
            // Not released on the strength of the client's own count, which may lag behind Redis (a
            // grant of another task of the owner on its way), but no longer renewed: gone within a lease.
            assertThat(client.heldLocks()).isEmpty();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(lock.isLocked())
                    .as("%s expires, not renewed forever", lock)
                    .isFalse());
        }
    }

    @Test
    void shouldNotLeaveSubscriptionsOrHoldsBehind() throws Exception {
        String name = "clean:" + UUID.randomUUID();
        RedisLock lock = client.getLock(name);
        lock.lock(30, TimeUnit.SECONDS);
        Future<Boolean> waiter = pool.submit(() -> client.getLock(name).tryLock(200, 30_000, TimeUnit.MILLISECONDS));
        assertThat(waiter.get(5, TimeUnit.SECONDS)).isFalse();
        lock.unlock();
        assertThat(client.heldLocks()).isEmpty();
        // Only the short-lived unlock latch of the release may remain.
        assertThat(redis.command("KEYS", "*" + name + "*").lines().filter(k -> !k.startsWith("redisson_unlock_latch:")))
                .isEmpty();
    }
}
