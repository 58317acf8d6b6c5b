package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockListener;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
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
 * Faults injected into real processes: holders killed or frozen, Redis restarted or frozen. Each
 * test has a hard time bound; each prints what happened with {@code [fault]} for the record.
 */
@Tag("fault")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FaultInjectionTests {

    private static final long WATCHDOG_MILLIS = 2000;

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
        name = "fault:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() throws Exception {
        redis.resume();
        pool.shutdownNow();
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    private LockClient client(Duration commandTimeout) {
        LockClient client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .watchdogTimeout(Duration.ofMillis(WATCHDOG_MILLIS))
                .commandTimeout(commandTimeout)
                .listener(new LockListener() {
                    @Override
                    public void onLeaseLost(String lockName, long ownerId) {
                        lost.add(lockName);
                    }
                })
                .build());
        closeables.add(client);
        return client;
    }

    private ChildJvm child(Class<?> main, String... args) {
        ChildJvm child = ChildJvm.start(main, args);
        closeables.add(child);
        return child;
    }

    @Test
    void whenHolderProcessIsKilledThenAnotherClientAcquiresWithinWatchdogTimeout() throws Exception {
        ChildJvm holder = child(LockHolderMain.class, redis.uri(), name, Long.toString(WATCHDOG_MILLIS), "-1");
        holder.expect("TOKEN", 30);
        RedisLock lock = client(Duration.ofSeconds(3)).getLock(name);
        assertThat(lock.isLocked()).isTrue();
        long killedAt = System.nanoTime();
        holder.kill();
        assertThat(lock.tryLock(10, 30, TimeUnit.SECONDS)).isTrue();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        // A full lease at most (renewed just before the kill), plus a loaded machine's slack.
        assertThat(millis).isLessThan(WATCHDOG_MILLIS + 3000);
        lock.unlock();
    }

    @Test
    void whenHolderIsPausedPastItsLeaseThenItsTokenIsRejectedAndItsUnlockReportsTheLoss() throws Exception {
        String resource = name + ":resource";
        ChildJvm holder = child(LockHolderMain.class, redis.uri(), name, Long.toString(WATCHDOG_MILLIS), "1500");
        long staleToken = Long.parseLong(holder.expect("TOKEN", 30));
        holder.signal("STOP");
        FencedLock lock = client(Duration.ofSeconds(3)).getFencedLock(name);
        OptionalLong token = lock.tryLockAndGetToken(10, 30, TimeUnit.SECONDS);
        assertThat(token).isPresent();
        assertThat(token.getAsLong()).isGreaterThan(staleToken);
        try (TokenCheckingStore store = new TokenCheckingStore(redis.uri())) {
            assertThat(store.write(resource, token.getAsLong(), "from-new-holder"))
                    .isTrue();
        }
        holder.signal("CONT");
        holder.send("WRITE " + resource);
        assertThat(holder.expect("WRITE", 30)).isEqualTo("rejected");
        holder.send("UNLOCK");
        String unlock = holder.expect("UNLOCK", 30);
        assertThat(unlock).startsWith("failed IllegalMonitorStateException").contains("expired");
        assertThat(lock.isHeldByCurrentThread())
                .as("the new holder keeps its lock")
                .isTrue();
        assertThat(redis.command("GET", resource)).isEqualTo("from-new-holder");
        holder.send("EXIT");
        lock.unlock();
    }

    @Test
    void whenRedisRestartsWithoutPersistenceThenTheHolderIsToldAndAWaiterAcquires() throws Exception {
        LockClient holderClient = client(Duration.ofSeconds(1));
        RedisLock held = holderClient.getLock(name);
        held.lock();
        redis.restart();
        await().atMost(Duration.ofSeconds(15)).until(() -> lost.contains(name));
        RedisLock waiter = client(Duration.ofSeconds(1)).getLock(name);
        assertThat(pool.submit(() -> waiter.tryLock(10, 30, TimeUnit.SECONDS)).get(20, TimeUnit.SECONDS))
                .isTrue();
        assertThatThrownBy(held::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(holderClient.heldLocks()).isEmpty();
    }

    @Test
    void whenRedisIsFrozenThenCallsFailWithinCommandTimeoutAndWaitersRecover() throws Exception {
        LockClient client = client(Duration.ofMillis(500));
        RedisLock holder = client.getLock(name);
        holder.lock(1500, TimeUnit.MILLISECONDS);
        Future<Boolean> waiter = pool.submit(() -> {
            RedisLock lock = client(Duration.ofMillis(500)).getLock(name);
            lock.lock(30, TimeUnit.SECONDS);
            lock.unlock();
            return true;
        });
        await().pollDelay(Duration.ofMillis(300)).until(() -> !waiter.isDone());
        redis.pause();
        long start = System.nanoTime();
        assertThatThrownBy(() -> client.getLock(name + ":other").tryLock(0, 10, TimeUnit.SECONDS))
                .isInstanceOf(LockException.class)
                .hasMessageContaining(name + ":other");
        long failedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(failedAfter).isLessThan(2500);
        await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> !waiter.isDone());
        redis.resume();
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    // Bound by progress (the ledger grows), not by this class's time per test: the work is fixed, and a
    // busy machine does it slowly. The timeout only ends a hang that progress would not catch.
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void whenProcessesContendThenNoTwoEverHoldTheLockAtOnce() throws Exception {
        int processes = 4;
        int threads = 8;
        int sections = 500;
        String ledger = name + ":ledger";
        List<ChildJvm> workers = new ArrayList<>();
        for (int p = 0; p < processes; p++) {
            workers.add(child(
                    LedgerWorkerMain.class,
                    redis.uri(),
                    name,
                    ledger,
                    Integer.toString(threads),
                    Integer.toString(sections)));
        }
        for (ChildJvm worker : workers) {
            assertThat(worker.expectWhileProgressing("DONE", () -> ledgerLength(ledger), Duration.ofSeconds(60)))
                    .isEqualTo(Integer.toString(threads * sections));
        }
        List<String> entries =
                redis.command("LRANGE", ledger, "0", "-1").lines().toList();
        assertThat(entries).hasSize(2 * processes * threads * sections);
        long previous = 0;
        for (int i = 0; i < entries.size(); i += 2) {
            String enter = entries.get(i);
            String exit = entries.get(i + 1);
            assertThat(enter).as("entry %d", i).startsWith("E ");
            long token = Long.parseLong(enter.substring(2));
            assertThat(exit)
                    .as("the section entered at %d exits before any other enters", i)
                    .isEqualTo("X " + token);
            assertThat(token).as("tokens increase").isGreaterThan(previous);
            previous = token;
        }
    }

    private static long ledgerLength(String ledger) {
        return Long.parseLong(redis.command("LLEN", ledger).trim().replaceAll("[^0-9]", ""));
    }
}
