package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

class FencedLockTests {

    private RedisServer redis;
    private LockClient clientA;
    private LockClient clientB;
    private ExecutorService pool;
    private String name;

    @BeforeEach
    void setUp() {
        redis = RedisServers.shared();
        clientA = LockClient.create(redis.uri());
        clientB = LockClient.create(redis.uri());
        pool = Executors.newSingleThreadExecutor();
        name = "fenced:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        clientA.close();
        clientB.close();
    }

    @Test
    void shouldIssueStrictlyIncreasingTokensAcrossClientsAndReentry() throws Exception {
        FencedLock a = clientA.getFencedLock(name);
        long first = a.lockAndGetToken(30, TimeUnit.SECONDS);
        long reentered = a.lockAndGetToken(30, TimeUnit.SECONDS);
        assertThat(reentered).isGreaterThan(first);
        assertThat(a.getToken()).isEqualTo(reentered);
        a.unlock();
        a.unlock();
        long other = pool.submit(() -> {
                    FencedLock b = clientB.getFencedLock(name);
                    long token = b.lockAndGetToken();
                    b.unlock();
                    return token;
                })
                .get();
        assertThat(other).isGreaterThan(reentered);
        assertThat(redis.command("GET", "redisson_lock_token:{" + name + "}")).isEqualTo(Long.toString(other));
    }

    @Test
    void shouldReturnEmptyAtOnceWhenHeldAndNotWaiting() throws Exception {
        clientA.getFencedLock(name).lock(30, TimeUnit.SECONDS);
        long start = System.nanoTime();
        OptionalLong token = pool.submit(() -> clientB.getFencedLock(name).tryLockAndGetToken(0, 10, TimeUnit.SECONDS))
                .get();
        assertThat(token).isEmpty();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2000);
    }

    @Test
    void shouldShareTheTokenCounterWithRedisson() throws Exception {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.uri());
        RedissonClient redisson = Redisson.create(config);
        try {
            FencedLock ours = clientA.getFencedLock(name);
            long ourToken = ours.lockAndGetToken(30, TimeUnit.SECONDS);
            RFencedLock theirs = redisson.getFencedLock(name);
            assertThat(pool.submit(() -> theirs.tryLock()).get())
                    .as("Redisson is excluded")
                    .isFalse();
            ours.unlock();
            Long theirToken = pool.submit(() -> {
                        Long token = theirs.lockAndGetToken();
                        theirs.unlock();
                        return token;
                    })
                    .get();
            assertThat(theirToken).isGreaterThan(ourToken);
            assertThat(ours.lockAndGetToken(30, TimeUnit.SECONDS)).isGreaterThan(theirToken);
            ours.unlock();
        } finally {
            redisson.shutdown();
        }
    }

    @Test
    void shouldDrawNoTokenForACancelledAsyncWait() throws Exception {
        FencedLock holder = clientA.getFencedLock(name);
        long holderId = RedisLock.newOwnerId();
        assertThat(holder.tryLockAndGetToken(0, 30, TimeUnit.SECONDS, holderId)).hasValue(1);
        FencedLock waiter = clientB.getFencedLock(name);
        long tokenWaiter = RedisLock.newOwnerId();
        long lockWaiter = RedisLock.newOwnerId();
        CompletableFuture<Long> tokenWait = waiter.tryLockAndGetTokenAsync(60, -1, TimeUnit.SECONDS, tokenWaiter)
                .toCompletableFuture();
        CompletableFuture<Void> lockWait =
                waiter.lockAsync(-1, TimeUnit.SECONDS, lockWaiter).toCompletableFuture();
        await().pollDelay(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(10))
                .until(() -> Parked.waiters(clientB) == 2);
        assertThat(tokenWait.cancel(false)).isTrue();
        assertThat(lockWait.cancel(false)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> Parked.waiters(clientB) == 0);
        holder.unlock(holderId);
        long third = RedisLock.newOwnerId();
        assertThat(holder.tryLockAndGetToken(2, 30, TimeUnit.SECONDS, third))
                .as("the next token: none was drawn for the cancelled waiters")
                .hasValue(2);
        assertThat(waiter.isHeldBy(tokenWaiter)).isFalse();
        assertThat(waiter.isHeldBy(lockWaiter)).isFalse();
        assertThat(clientB.heldLocks()).isEmpty();
        holder.unlock(third);
    }
}
