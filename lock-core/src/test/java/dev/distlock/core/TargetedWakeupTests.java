package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A release wakes one waiting client, not all of them: each hand-off costs the other waiting
 * clients no attempt at all. Attempts are counted by Redis itself (every acquire runs one PTTL).
 */
class TargetedWakeupTests {

    private static final int CLIENTS = 4;

    private final List<LockClient> clients = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private RedisServer redis;
    private String name;

    @BeforeEach
    void setUp() {
        redis = RedisServers.shared();
        name = "targeted:" + UUID.randomUUID();
        for (int i = 0; i <= CLIENTS; i++) {
            clients.add(LockClient.create(redis.uri()));
        }
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        clients.forEach(LockClient::close);
    }

    @Test
    void shouldWakeOneWaitingClientPerRelease() throws Exception {
        RedisLock holder = clients.get(0).getLock(name);
        holder.lock(60, TimeUnit.SECONDS);
        BlockingQueue<CountDownLatch> holding = new LinkedBlockingQueue<>();
        for (int i = 1; i <= CLIENTS; i++) {
            LockClient client = clients.get(i);
            pool.submit(() -> {
                RedisLock lock = client.getLock(name);
                lock.lock(60, TimeUnit.SECONDS);
                CountDownLatch release = new CountDownLatch(1);
                holding.add(release);
                release.await();
                lock.unlock();
                return null;
            });
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> redis.command("SCARD", "distlock_lock_waiters:{" + name + "}")
                        .equals(Integer.toString(CLIENTS)));
        long before = pttlCalls();
        holder.unlock();
        for (int handOff = 1; handOff <= CLIENTS; handOff++) {
            CountDownLatch release = holding.poll(10, TimeUnit.SECONDS);
            assertThat(release).as("hand-off %d happened", handOff).isNotNull();
            // Give a broadcast's extra attempts time to show up before counting.
            await().pollDelay(Duration.ofMillis(200)).until(() -> true);
            assertThat(pttlCalls() - before)
                    .as("attempts after %d hand-offs", handOff)
                    .isEqualTo(handOff);
            assertThat(holding).as("nobody else got in").isEmpty();
            release.countDown();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !holder.isLocked());
        assertThat(redis.command("EXISTS", "distlock_lock_waiters:{" + name + "}"))
                .isEqualTo("0");
    }

    @Test
    void shouldPassOnAWakeupThatReachesAClientWhoseWaitersLeft() throws Exception {
        String waiters = "distlock_lock_waiters:{" + name + "}";
        RedisLock holder = clients.get(0).getLock(name);
        holder.lock(60, TimeUnit.SECONDS);
        // Client 1 waits briefly and gives up; its wake-up channel stays subscribed for a while.
        assertThat(clients.get(1).getLock(name).tryLock(200, 60_000, TimeUnit.MILLISECONDS))
                .isFalse();
        // Client 2 parks for the holder's whole lease unless a wake-up reaches it.
        var waiter = pool.submit(() -> clients.get(2).getLock(name).tryLock(30, 60, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.command("SMEMBERS", waiters)
                .equals(clients.get(2).getId()));
        // A stale listing: the release will pick client 1, which has nobody left to wake.
        redis.command("SREM", waiters, clients.get(2).getId());
        redis.command("SADD", waiters, clients.get(1).getId());
        long releasedAt = System.nanoTime();
        holder.unlock();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt))
                .isLessThan(5000);
        assertThat(redis.command("SISMEMBER", waiters, clients.get(1).getId())).isEqualTo("0");
    }

    private long pttlCalls() {
        return redis.command("INFO", "commandstats")
                .lines()
                .filter(line -> line.startsWith("cmdstat_pttl:"))
                .map(line -> line.substring(line.indexOf("calls=") + 6, line.indexOf(',')))
                .mapToLong(Long::parseLong)
                .findFirst()
                .orElse(0);
    }
}
