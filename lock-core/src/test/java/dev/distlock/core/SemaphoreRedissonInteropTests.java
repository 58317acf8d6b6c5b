package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

/** Redisson's RPermitExpirableSemaphore and a Distlock semaphore of the same name share its permits. */
class SemaphoreRedissonInteropTests {

    private RedisServer redis;
    private RedissonInterop interop;
    private RedissonClient redisson;
    private LockClient distlock;
    private ExecutorService pool;
    private String name;

    @BeforeEach
    void setUp() {
        redis = RedisServers.shared();
        interop = new RedissonInterop(redis);
        redisson = interop.client();
        distlock = LockClient.create(redis.uri());
        pool = Executors.newCachedThreadPool();
        name = "interop-semaphore:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        pool.shutdownNow();
        distlock.close();
        interop.close();
    }

    @Test
    void shouldWriteRedissonsLayout() throws Exception {
        RPermitExpirableSemaphore theirs = redisson.getPermitExpirableSemaphore(name);
        RedisSemaphore ours = distlock.getSemaphore(name);
        assertThat(ours.trySetPermits(3)).isTrue();
        assertThat(theirs.trySetPermits(5)).isFalse();
        String permit = ours.tryAcquire(0, 30, TimeUnit.SECONDS);
        assertThat(permit).isNotNull();
        String theirPermit = theirs.tryAcquire(0, 30, TimeUnit.SECONDS);
        assertThat(redis.command("GET", name)).isEqualTo("1");
        assertThat(redis.command("TYPE", "{" + name + "}:timeout")).isEqualTo("zset");
        assertThat(redis.command("ZCARD", "{" + name + "}:timeout")).isEqualTo("2");
        assertThat(theirs.availablePermits()).isEqualTo(1);
        assertThat(theirs.acquiredPermits()).isEqualTo(2);
        // Redisson reads our permit's lease, and each side releases the other's permit by its id.
        assertThat(theirs.getLeaseTime(permit)).isBetween(1L, 30_000L);
        theirs.release(permit);
        ours.release(theirPermit);
        assertThat(ours.availablePermits()).isEqualTo(3);
        assertThat(theirs.availablePermits()).isEqualTo(3);
    }

    @Test
    void shouldNeverExceedThePermitsTogether() throws Exception {
        int permits = 2;
        distlock.getSemaphore(name).trySetPermits(permits);
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            boolean redissonSide = t % 2 == 0;
            workers.add(pool.submit(() -> {
                for (int i = 0; i < 10; i++) {
                    String permit = redissonSide
                            ? redisson.getPermitExpirableSemaphore(name).tryAcquire(20, 30, TimeUnit.SECONDS)
                            : distlock.getSemaphore(name).tryAcquire(20, 30, TimeUnit.SECONDS);
                    assertThat(permit).isNotNull();
                    most.accumulateAndGet(holders.incrementAndGet(), Math::max);
                    Thread.sleep(2);
                    holders.decrementAndGet();
                    if (redissonSide) {
                        redisson.getPermitExpirableSemaphore(name).release(permit);
                    } else {
                        distlock.getSemaphore(name).release(permit);
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }
        assertThat(most.get()).isBetween(1, permits);
        assertThat(redisson.getPermitExpirableSemaphore(name).availablePermits())
                .isEqualTo(permits);
    }

    @Test
    void shouldWakeDistlockWhenRedissonReleases() throws Exception {
        RPermitExpirableSemaphore theirs = redisson.getPermitExpirableSemaphore(name);
        theirs.trySetPermits(1);
        String permit = theirs.acquire(60, TimeUnit.SECONDS);
        CompletableFuture<String> waiter = distlock.getSemaphore(name)
                .tryAcquireAsync(30, 60, TimeUnit.SECONDS)
                .toCompletableFuture();
        Thread.sleep(300);
        assertThat(waiter).isNotDone();
        theirs.release(permit);
        await().atMost(Duration.ofSeconds(2)).until(waiter::isDone);
        assertThat(waiter.get()).isNotNull();
    }

    @Test
    void shouldWakeRedissonWhenDistlockReleases() throws Exception {
        RedisSemaphore ours = distlock.getSemaphore(name);
        ours.trySetPermits(1);
        String permit = ours.acquire(60, TimeUnit.SECONDS);
        Future<String> waiter =
                pool.submit(() -> redisson.getPermitExpirableSemaphore(name).tryAcquire(30, 60, TimeUnit.SECONDS));
        Thread.sleep(300);
        assertThat(waiter).isNotDone();
        ours.release(permit);
        await().atMost(Duration.ofSeconds(2)).until(waiter::isDone);
        assertThat(waiter.get()).isNotNull();
    }

    @Test
    void shouldGiveBackAnExpiredDistlockPermitToRedisson() throws Exception {
        RedisSemaphore ours = distlock.getSemaphore(name);
        ours.trySetPermits(1);
        assertThat(ours.tryAcquire(0, 300, TimeUnit.MILLISECONDS)).isNotNull();
        String theirs = redisson.getPermitExpirableSemaphore(name).tryAcquire(5, 30, TimeUnit.SECONDS);
        assertThat(theirs).isNotNull();
    }
}
