package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockListener;
import dev.distlock.core.MultiLock;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Calls made while the client reconnects: Redis stopped and started again on the same port. A
 * call waits for the connection within its own deadline and then runs; when the deadline passes
 * first it fails saying how long Redis was unreachable, and nothing it would have written reaches
 * Redis afterwards.
 */
@Tag("fault")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReconnectFaultTests {

    /** How long Redis stays down: longer than the first reconnect attempts, as a real restart. */
    private static final Duration DOWN = Duration.ofSeconds(2);

    private static RedisServer redis;
    private final List<String> lost = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private ExecutorService pool;
    private String name;

    @BeforeAll
    static void startRedis() {
        redis = RedisServers.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.stop();
    }

    @BeforeEach
    void setUp() {
        if (!redis.isRunning()) {
            redis.start();
        }
        pool = Executors.newCachedThreadPool();
        name = "reconnect:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (!redis.isRunning()) {
            redis.start();
        }
        pool.shutdownNow();
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    private LockClient client(Duration commandTimeout, Duration watchdog) {
        LockClient client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .commandTimeout(commandTimeout)
                .watchdogTimeout(watchdog)
                .listener(new LockListener() {
                    @Override
                    public void onLeaseLost(String lockName, long ownerId) {
                        lost.add(lockName);
                    }
                })
                .build());
        closeables.add(client);
        // Connected before the fault, as a running application is. The first connection of a JVM loads
        // many classes, which takes seconds on a loaded machine.
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> client.ping() != null);
        return client;
    }

    private LockClient client(Duration commandTimeout) {
        return client(commandTimeout, LockClientOptions.DEFAULT_WATCHDOG_TIMEOUT);
    }

    /** Stops Redis and returns once the client has seen the connection drop. */
    private void stopRedisSeenBy(LockClient client) {
        redis.stop();
        DropSeen.awaitSeenBy(client.getLock(name + ":probe"));
    }

    private static void downFor(Duration downtime) throws InterruptedException {
        redis.stop();
        // The fault's length, not a wait for something to happen.
        Thread.sleep(downtime.toMillis());
        redis.start();
    }

    @Test
    void whenRedisIsBackThenANonWaitingTryLockOnAFreshNameSucceedsAtOnce() throws Exception {
        LockClient client = client(Duration.ofSeconds(5));
        assertThat(client.getLock(name + ":held").tryLock(0, 30, TimeUnit.SECONDS))
                .isTrue();
        downFor(DOWN);
        long start = System.nanoTime();
        RedisLock fresh = client.getLock(name);
        assertThat(fresh.tryLock(0, 30, TimeUnit.SECONDS)).isTrue();
        // Within the longest reconnect delay (1 s by default), plus a loaded machine's slack.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(4000));
        assertThat(fresh.isHeldByCurrentThread()).isTrue();
        fresh.unlock();
    }

    @Test
    void whenCallsAreMadeWhileRedisIsDownThenTheyWaitAndRunOnceItIsBack() throws Exception {
        LockClient client = client(Duration.ofSeconds(8));
        RedisLock held = client.getLock(name + ":held");
        long owner = RedisLock.newOwnerId();
        stopRedisSeenBy(client);
        Future<Boolean> acquire = pool.submit(() -> client.getLock(name).tryLock(0, 30, TimeUnit.SECONDS));
        Future<Boolean> waiting = pool.submit(() -> held.tryLock(20, 30, TimeUnit.SECONDS, owner));
        Future<Boolean> inspect =
                pool.submit(() -> client.getLock(name + ":free").isLocked());
        Future<Long> ttl = pool.submit(() -> client.getLock(name + ":free").remainTimeToLive());
        Future<LockInfo> info = pool.submit(() -> client.inspect(name + ":free"));
        // Still waiting for the connection, not failed at once.
        await().pollDelay(DOWN).atMost(DOWN.plusSeconds(2)).until(() -> true);
        assertThat(List.of(acquire, waiting, inspect, ttl, info)).noneMatch(Future::isDone);
        redis.start();
        assertThat(acquire.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(inspect.get(10, TimeUnit.SECONDS)).isFalse();
        assertThat(ttl.get(10, TimeUnit.SECONDS)).isEqualTo(-2L);
        assertThat(info.get(10, TimeUnit.SECONDS).locked()).isFalse();
        assertThat(redis.command("EXISTS", name)).isEqualTo("1");
        held.unlock(owner);
    }

    @Test
    void whenTheDeadlinePassesWhileRedisIsDownThenTheCallFailsAsUnreachableAndWritesNothing() throws Exception {
        LockClient client = client(Duration.ofMillis(1000));
        stopRedisSeenBy(client);
        long start = System.nanoTime();
        assertThatThrownBy(() -> client.getLock(name).tryLock(0, 30, TimeUnit.SECONDS))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("'" + name + "'")
                .hasMessageContaining("unreachable for");
        long failedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(failedAfter).isBetween(900L, 4000L);
        // A waiting call has its wait as deadline.
        start = System.nanoTime();
        assertThatThrownBy(() -> client.getLock(name + ":waiting").tryLock(1500, 30_000, TimeUnit.MILLISECONDS))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("unreachable for");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(1400L, 5000L);
        assertThatThrownBy(() -> client.getLock(name + ":inspected").isLocked())
                .isInstanceOf(LockException.class)
                .hasMessageContaining("unreachable for");
        redis.start();
        // Reconnected: anything still queued for this connection would have been written before this PING.
        await().atMost(Duration.ofSeconds(5)).ignoreExceptions().until(() -> client.ping() != null);
        assertThat(redis.command("EXISTS", name, name + ":waiting")).isEqualTo("0");
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void whenACallWaitingForTheConnectionIsCancelledThenNothingIsWrittenOnceRedisIsBack() throws Exception {
        LockClient client = client(Duration.ofSeconds(8));
        stopRedisSeenBy(client);
        CompletableFuture<Boolean> acquire = client.getLock(name)
                .tryLockAsync(20, 30, TimeUnit.SECONDS, RedisLock.newOwnerId())
                .toCompletableFuture();
        await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> true);
        assertThat(acquire).as("still waiting for the connection").isNotDone();
        assertThat(acquire.cancel(false)).isTrue();
        redis.start();
        await().atMost(Duration.ofSeconds(5)).ignoreExceptions().until(() -> client.ping() != null);
        // Long enough for a write that survived the cancel to have reached Redis: it waits at most 100 ms.
        await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> true);
        client.ping();
        assertThat(redis.command("EXISTS", name)).isEqualTo("0");
    }

    @Test
    void whenRedisRestartsThenTheOldHoldersUnlockReportsTheLostHold() throws Exception {
        LockClient client = client(Duration.ofSeconds(3));
        RedisLock lock = client.getLock(name);
        lock.lock(30, TimeUnit.SECONDS);
        stopRedisSeenBy(client);
        redis.start();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(name);
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void whenRedisRestartsWithItsDataThenWatchdogRenewalsRideOutTheOutage() throws Exception {
        // Renewal rounds every 3 s: a round refused during the outage would otherwise wait for the next.
        Duration watchdog = Duration.ofSeconds(9);
        LockClient client = client(Duration.ofSeconds(3), watchdog);
        RedisLock lock = client.getLock(name);
        lock.lock();
        // A restart that keeps its data (a snapshot, as with persistence): the hold survives it.
        redis.command("SAVE");
        downFor(Duration.ofMillis(2500));
        long back = System.nanoTime();
        // Renewed as soon as the connection is back, not a renewal round or a long reconnect delay later.
        await().atMost(Duration.ofMillis(2500))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> Long.parseLong(redis.command("PTTL", name)) > watchdog.toMillis() - 1000);
        assertThat(Duration.ofNanos(System.nanoTime() - back)).isLessThan(Duration.ofMillis(2500));
        assertThat(lost).isEmpty();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertThat(redis.command("EXISTS", name)).isEqualTo("0");
    }

    @Test
    void whenRedisIsDownThenACompositeLockWaitsForItWithinItsWait() throws Exception {
        LockClient client = client(Duration.ofSeconds(5));
        MultiLock multi = MultiLock.of(client.getLock(name + ":a"), client.getLock(name + ":b"));
        long owner = RedisLock.newOwnerId();
        stopRedisSeenBy(client);
        Future<Boolean> acquire = pool.submit(() -> multi.tryLock(10, 30, TimeUnit.SECONDS, owner));
        await().pollDelay(DOWN).atMost(DOWN.plusSeconds(2)).until(() -> true);
        assertThat(acquire).isNotDone();
        redis.start();
        assertThat(acquire.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(redis.command("EXISTS", name + ":a", name + ":b")).isEqualTo("2");
        multi.unlock(owner);
        assertThat(redis.command("EXISTS", name + ":a", name + ":b")).isEqualTo("0");
    }

    @Test
    void whenRedisStopsAnsweringWhileAWaitingMultiLockTriesAgainThenItKeepsWaiting() throws Exception {
        LockClient client = client(Duration.ofMillis(500));
        LockClient holder = client(Duration.ofSeconds(5));
        long stranger = RedisLock.newOwnerId();
        assertThat(holder.getLock(name + ":b").tryLock(0, 1500, TimeUnit.MILLISECONDS, stranger))
                .isTrue();
        // Both members on one server: one script takes them, and it is refused until B's lease ends.
        MultiLock multi = MultiLock.of(client.getLock(name + ":a"), client.getLock(name + ":b"));
        long owner = RedisLock.newOwnerId();
        Future<Boolean> acquire = pool.submit(() -> multi.tryLock(20, 30, TimeUnit.SECONDS, owner));
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !acquire.isDone());
        // Frozen across the end of B's lease: the waiter's next attempts get no answer.
        redis.pause();
        try {
            Thread.sleep(3000);
        } finally {
            redis.resume();
        }
        assertThat(acquire.get(15, TimeUnit.SECONDS))
                .as("the waiting multi lock")
                .isTrue();
        assertThat(redis.command("EXISTS", name + ":a", name + ":b")).isEqualTo("2");
        multi.unlock(owner);
        assertThat(redis.command("EXISTS", name + ":a", name + ":b")).isEqualTo("0");
    }
}
