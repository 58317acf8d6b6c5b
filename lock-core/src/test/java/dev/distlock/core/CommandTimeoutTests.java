package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every public blocking call other than a lock wait fails within one command timeout (plus the
 * scheduling slack of a loaded machine) when Redis stops answering: one deadline per call, however
 * many commands the call sends.
 */
@Tag("fault")
class CommandTimeoutTests {

    private static final Duration TIMEOUT = Duration.ofMillis(1000);

    /** Generous for a loaded machine, yet well below two command timeouts. */
    private static final Duration SLACK = Duration.ofMillis(700);

    private RedisServer redis;
    private LockClient client;

    @BeforeEach
    void setUp() {
        redis = RedisServers.start();
        client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .commandTimeout(TIMEOUT)
                .build());
    }

    @AfterEach
    void tearDown() {
        try {
            redis.resume();
            client.close();
        } finally {
            redis.stop();
        }
    }

    private interface Call {
        void run() throws Exception;
    }

    /** @return how long the call took to fail with a LockException */
    private static Duration failing(String what, Call call) {
        long start = System.nanoTime();
        Throwable failure = catchThrowable(call::run);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(failure).as(what).isInstanceOf(LockException.class);
        return took;
    }

    @Test
    void whenRedisIsFrozenThenEveryNonWaitingCallFailsWithinOneCommandTimeout() throws Exception {
        RedisLock reentrant = client.getLock("timeout-reentrant");
        RedisLock fair = client.getFairLock("timeout-fair");
        FencedLock fenced = client.getFencedLock("timeout-fenced");
        RedisReadWriteLock rw = client.getReadWriteLock("timeout-rw");
        RedisReadWriteLock rwRead = client.getReadWriteLock("timeout-rw-read");
        long owner = RedisLock.newOwnerId();
        assertThat(reentrant.tryLock(0, 60, TimeUnit.SECONDS, owner)).isTrue();
        assertThat(fair.tryLock(0, 60, TimeUnit.SECONDS, owner)).isTrue();
        assertThat(fenced.tryLock(0, 60, TimeUnit.SECONDS, owner)).isTrue();
        assertThat(rw.writeLock().tryLock(0, 60, TimeUnit.SECONDS, owner)).isTrue();
        assertThat(rwRead.readLock().tryLock(0, 60, TimeUnit.SECONDS, owner)).isTrue();
        client.ping();

        redis.pause();

        Map<String, Duration> took = new LinkedHashMap<>();
        took.put("tryLock()", failing("tryLock()", () -> client.getLock("timeout-free")
                .tryLock()));
        took.put("tryLock(0, lease)", failing("tryLock(0, lease)", () -> client.getLock("timeout-free")
                .tryLock(0, 10, TimeUnit.SECONDS)));
        took.put("fair tryLock(0, lease)", failing("fair tryLock(0, lease)", () -> client.getFairLock(
                        "timeout-fair-free")
                .tryLock(0, 10, TimeUnit.SECONDS)));
        took.put("write tryLock(0, lease)", failing("write tryLock(0, lease)", () -> client.getReadWriteLock(
                        "timeout-rw-free")
                .writeLock()
                .tryLock(0, 10, TimeUnit.SECONDS)));
        took.put("reentrant unlock", failing("reentrant unlock", () -> reentrant.unlock(owner)));
        took.put("fair unlock", failing("fair unlock", () -> fair.unlock(owner)));
        took.put("fenced unlock", failing("fenced unlock", () -> fenced.unlock(owner)));
        took.put("write unlock", failing("write unlock", () -> rw.writeLock().unlock(owner)));
        took.put("read unlock", failing("read unlock", () -> rwRead.readLock().unlock(owner)));
        took.put("forceUnlock", failing("forceUnlock", () -> client.getLock("timeout-other")
                .forceUnlock()));
        took.put("isLocked", failing("isLocked", reentrant::isLocked));
        took.put("read isLocked", failing("read isLocked", () -> rw.readLock().isLocked()));
        took.put("isHeldBy", failing("isHeldBy", () -> reentrant.isHeldBy(owner)));
        took.put("getHoldCount", failing("getHoldCount", reentrant::getHoldCount));
        took.put("remainTimeToLive", failing("remainTimeToLive", reentrant::remainTimeToLive));
        took.put("getToken", failing("getToken", fenced::getToken));
        took.put("ping", failing("ping", client::ping));
        took.put("inspect", failing("inspect", () -> client.inspect("timeout-fair")));

        Duration bound = TIMEOUT.plus(SLACK);
        assertThat(took).as("time to fail with commandTimeout %s", TIMEOUT).allSatisfy((call, duration) -> assertThat(
                        duration)
                .as(call + " took " + duration.toMillis() + " ms; all: " + took)
                .isLessThan(bound));
    }

    @Test
    void whenRedisFreezesDuringAWaitThenTryLockFailsAsUnreachableWithinTheWaitPlusTwoCommandTimeouts()
            throws Exception {
        Duration wait = Duration.ofSeconds(3);
        try (LockClient holder = LockClient.create(redis.uri())) {
            Map<String, RedisLock> waiters = new LinkedHashMap<>();
            waiters.put("reentrant", client.getLock("timeout-wait-reentrant"));
            waiters.put("fair", client.getFairLock("timeout-wait-fair"));
            assertThat(holder.getLock("timeout-wait-reentrant").tryLock(0, 60, TimeUnit.SECONDS))
                    .isTrue();
            assertThat(holder.getFairLock("timeout-wait-fair").tryLock(0, 60, TimeUnit.SECONDS))
                    .isTrue();
            Map<String, java.util.concurrent.FutureTask<Boolean>> tasks = new LinkedHashMap<>();
            Map<String, Thread> threads = new LinkedHashMap<>();
            long[] started = new long[1];
            for (Map.Entry<String, RedisLock> waiter : waiters.entrySet()) {
                java.util.concurrent.FutureTask<Boolean> task = new java.util.concurrent.FutureTask<>(
                        () -> waiter.getValue().tryLock(wait.toMillis(), 60_000, TimeUnit.MILLISECONDS));
                tasks.put(waiter.getKey(), task);
                Thread thread = new Thread(task, "frozen-waiter-" + waiter.getKey());
                threads.put(waiter.getKey(), thread);
            }
            started[0] = System.nanoTime();
            threads.values().forEach(Thread::start);
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(2))
                    .until(() -> Parked.waiters(client) == threads.size());
            redis.pause();
            Duration bound = wait.plus(TIMEOUT.multipliedBy(2)).plus(SLACK);
            for (Map.Entry<String, java.util.concurrent.FutureTask<Boolean>> task : tasks.entrySet()) {
                // A waiter keeps waiting through the outage; when its wait ends with Redis still not
                // answering, it says so rather than report the lock taken.
                Throwable failure = catchThrowable(() -> task.getValue().get(30, TimeUnit.SECONDS));
                Duration took = Duration.ofNanos(System.nanoTime() - started[0]);
                assertThat(failure)
                        .as(task.getKey())
                        .isInstanceOf(java.util.concurrent.ExecutionException.class)
                        .cause()
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("timeout-wait-" + task.getKey());
                assertThat(took)
                        .as(task.getKey() + " took " + took.toMillis() + " ms")
                        .isLessThan(bound);
            }
        }
    }

    @Test
    void whenTheWakeUpConnectionCannotBeOpenedThenAWaiterKeepsWaitingAndAcquires() throws Exception {
        io.lettuce.core.RedisClient admin = io.lettuce.core.RedisClient.create(redis.uri());
        try (var adminConnection = admin.connect();
                LockClient holder = LockClient.create(redis.uri())) {
            var commands = adminConnection.sync();
            assertThat(holder.getLock("timeout-unsubscribed").tryLock(0, 2, TimeUnit.SECONDS))
                    .isTrue();
            // The waiter's command connection exists; its pub/sub connection, opened on its first wait, is refused.
            client.ping();
            String maxClients = commands.configGet("maxclients").get("maxclients");
            long connected = commands.clientList()
                    .lines()
                    .filter(line -> !line.isBlank())
                    .count();
            commands.configSet("maxclients", Long.toString(connected));
            try {
                long start = System.nanoTime();
                // Acquired once the holder's 2 s lease ends, although no wake-up can reach the waiter.
                assertThat(client.getLock("timeout-unsubscribed").tryLock(10, 10, TimeUnit.SECONDS))
                        .isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(8));
            } finally {
                commands.configSet("maxclients", maxClients);
            }
            client.getLock("timeout-unsubscribed").unlock();
        } finally {
            admin.shutdown();
        }
    }
}
