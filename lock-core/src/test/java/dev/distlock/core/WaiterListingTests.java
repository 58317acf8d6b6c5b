package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A client is listed as waiting on a lock exactly while one of its threads waits on it. */
class WaiterListingTests {

    private RedisServer redis;
    private LockClient holderClient;
    private LockClient waiterClient;
    private ExecutorService pool;
    private String name;
    private String listing;

    @BeforeEach
    void setUp() {
        redis = RedisServers.shared();
        holderClient = LockClient.create(redis.uri());
        waiterClient = LockClient.create(redis.uri());
        pool = Executors.newCachedThreadPool();
        name = "listing:" + UUID.randomUUID();
        listing = "distlock_lock_waiters:{" + name + "}";
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        waiterClient.close();
        holderClient.close();
    }

    @Test
    void whenTwoLocalWaitersGiveUpTogetherThenTheClientIsUnlisted() throws Exception {
        holderClient.getLock(name).lock(60, TimeUnit.SECONDS);
        RedisLock waiter = waiterClient.getLock(name);
        // Two waits of one client that end on the same timer round: both are counted as waiting
        // until each has given up, so neither sees itself as the last to leave when it decides.
        java.util.concurrent.CompletableFuture<Boolean> first = waiter.tryLockAsync(
                        2, 60, TimeUnit.SECONDS, RedisLock.newOwnerId())
                .toCompletableFuture();
        java.util.concurrent.CompletableFuture<Boolean> second = waiter.tryLockAsync(
                        2, 60, TimeUnit.SECONDS, RedisLock.newOwnerId())
                .toCompletableFuture();
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(redis.command("SISMEMBER", listing, waiterClient.getId()))
                        .as("client listed while its waiters wait")
                        .isEqualTo("1"));
        assertThat(first.get(30, TimeUnit.SECONDS)).isFalse();
        assertThat(second.get(30, TimeUnit.SECONDS)).isFalse();

        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(redis.command("SISMEMBER", listing, waiterClient.getId()))
                        .as("client still listed as waiting")
                        .isEqualTo("0"));
    }
}
