package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;

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
        // Each waiter reports its timeout only once the other has timed out too, so both have
        // finished giving up while both are still counted as waiting.
        CyclicBarrier bothTimedOut = new CyclicBarrier(2);
        RedisLock waiter = waiterClient.getLock(name).withListener(new LockListener() {
            @Override
            public void onTimeout(String lockName, long ownerId, long waitNanos) {
                try {
                    bothTimedOut.await(20, TimeUnit.SECONDS);
                }
                catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
            }
        });
        Future<Boolean> first = pool.submit(() -> waiter.tryLock(2, 60, TimeUnit.SECONDS));
        Future<Boolean> second = pool.submit(() -> waiter.tryLock(2, 60, TimeUnit.SECONDS));
        assertThat(first.get(30, TimeUnit.SECONDS)).isFalse();
        assertThat(second.get(30, TimeUnit.SECONDS)).isFalse();
        assertThat(bothTimedOut.isBroken()).as("both waiters timed out together").isFalse();

        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(redis.command("SISMEMBER", listing, waiterClient.getId()))
                        .as("client still listed as waiting").isEqualTo("0"));
    }
}
