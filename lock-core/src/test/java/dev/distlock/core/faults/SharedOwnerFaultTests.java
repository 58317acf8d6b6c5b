package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.Progress;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One owner id shared by several tasks, on every lock kind: each grant is one hold, an unlock that
 * overlaps a re-entry of the same owner releases one hold and keeps the other, and an unlock never
 * shortens what the owner's remaining holds were granted. Redis is frozen with {@code DEBUG SLEEP}
 * so that the re-entry and the unlock wait in the connection together and their replies come back
 * in one burst, whichever order Redis applied them in; both orders must leave one hold.
 */
@Tag("fault")
class SharedOwnerFaultTests {

    /** The client's watchdog lease: short, so that a watchdog hold outliving it is observable. */
    private static final Duration WATCHDOG = Duration.ofSeconds(2);

    private static RedisServer redis;

    private LockClient clientA;
    private LockClient clientB;
    private ExecutorService tasks;
    private String name;

    @BeforeAll
    static void startRedis() {
        redis = RedisServers.startAnsweringDebug();
    }

    @AfterAll
    static void stopRedis() {
        redis.stop();
    }

    @BeforeEach
    void setUp() {
        clientA = newClient();
        clientB = newClient();
        tasks = Executors.newFixedThreadPool(3);
        name = "shared-owner:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        tasks.shutdownNow();
        clientA.close();
        clientB.close();
    }

    private static LockClient newClient() {
        return LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .watchdogTimeout(WATCHDOG)
                .build());
    }

    @ParameterizedTest
    @EnumSource(ContendedKind.class)
    void anUnlockOverlappingABlockingReentryOfTheSameOwnerKeepsOneHold(ContendedKind kind) throws Exception {
        for (int round = 0; round < 5; round++) {
            String lockName = name + ":" + round;
            RedisLock lock = kind.lock(clientA, lockName);
            RedisLock contender = kind.contender(clientB, lockName);
            long owner = RedisLock.newOwnerId();
            assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS, owner)).isTrue();

            Future<String> frozen = tasks.submit(() -> redis.command("DEBUG", "SLEEP", "0.5"));
            // Checked once it returns: a server that refused DEBUG would make every round a quiet one.
            // Either order of the two calls below must leave one hold; the pause only makes their
            // replies arrive together, so a head start for the sleep is all it needs.
            Thread.sleep(100);
            Future<Boolean> reentry = tasks.submit(() -> lock.tryLock(0, 30, TimeUnit.SECONDS, owner));
            CompletableFuture<Void> unlock = lock.unlockAsync(owner).toCompletableFuture();

            assertThat(reentry.get(10, TimeUnit.SECONDS))
                    .as("round %d: the re-entry", round)
                    .isTrue();
            unlock.get(10, TimeUnit.SECONDS);
            assertThat(frozen.get(10, TimeUnit.SECONDS)).as("DEBUG SLEEP ran").contains("OK");

            assertThat(lock.isHeldBy(owner))
                    .as("round %d: one hold is left", round)
                    .isTrue();
            assertThat(contender.tryLock(0, 30, TimeUnit.SECONDS))
                    .as("round %d: another client is kept out while the owner holds", round)
                    .isFalse();
            lock.unlock(owner);
            assertThat(lock.isHeldBy(owner))
                    .as("round %d: the last hold released", round)
                    .isFalse();
            assertThat(contender.tryLock(0, 30, TimeUnit.SECONDS))
                    .as("round %d: free once both holds are unlocked", round)
                    .isTrue();
            contender.unlock();
        }
    }

    @ParameterizedTest
    @EnumSource(ContendedKind.class)
    void oneTasksUnlockKeepsTheLongerLeaseOfTheOtherTask(ContendedKind kind) throws Exception {
        RedisLock lock = kind.lock(clientA, name);
        RedisLock contender = kind.contender(clientB, name);
        long owner = RedisLock.newOwnerId();
        assertThat(tasks.submit(() -> lock.tryLock(0, 1, TimeUnit.SECONDS, owner))
                        .get(10, TimeUnit.SECONDS))
                .isTrue();
        assertThat(tasks.submit(() -> lock.tryLock(0, 30, TimeUnit.SECONDS, owner))
                        .get(10, TimeUnit.SECONDS))
                .isTrue();
        lock.unlock(owner);

        assertThat(lock.remainTimeToLive()).as("the 30 s lease still owed").isGreaterThan(20_000);
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(6)).until(() -> lock.isHeldBy(owner));
        assertThat(contender.tryLock(0, 30, TimeUnit.SECONDS))
                .as("kept out past the 1 s lease")
                .isFalse();
        lock.unlock(owner);
        assertThat(contender.tryLock(0, 30, TimeUnit.SECONDS)).isTrue();
        contender.unlock();
    }

    @ParameterizedTest
    @EnumSource(ContendedKind.class)
    void oneTasksUnlockKeepsTheWatchdogHoldOfTheOtherTaskRenewed(ContendedKind kind) throws Exception {
        RedisLock lock = kind.lock(clientA, name);
        RedisLock contender = kind.contender(clientB, name);
        long owner = RedisLock.newOwnerId();
        assertThat(tasks.submit(() -> lock.tryLock(0, 1, TimeUnit.SECONDS, owner))
                        .get(10, TimeUnit.SECONDS))
                .isTrue();
        assertThat(tasks.submit(() -> lock.tryLock(0, -1, TimeUnit.SECONDS, owner))
                        .get(10, TimeUnit.SECONDS))
                .isTrue();
        lock.unlock(owner);

        // Past the 1 s lease and more than a watchdog lease: only the watchdog's renewals keep it.
        await().during(Duration.ofMillis(3500)).atMost(Duration.ofSeconds(10)).until(() -> lock.isHeldBy(owner));
        assertThat(contender.tryLock(0, 30, TimeUnit.SECONDS))
                .as("kept out by the renewed hold")
                .isFalse();
        lock.unlock(owner);
        assertThat(contender.tryLock(0, 30, TimeUnit.SECONDS)).isTrue();
        contender.unlock();
    }

    /**
     * The reviewer's loop, bounded by work rather than time: two tasks of one owner take and give back
     * the lock, one through the blocking calls and one through the asynchronous ones, each with its
     * own lease, while another client keeps trying; nobody may be inside together with the other side.
     */
    @ParameterizedTest
    @EnumSource(ContendedKind.class)
    void twoTasksOfOneOwnerNeverLetAnotherClientIn(ContendedKind kind) throws Exception {
        RedisLock lock = kind.lock(clientA, name);
        RedisLock contender = kind.contender(clientB, name);
        long owner = RedisLock.newOwnerId();
        AtomicInteger ownerInside = new AtomicInteger();
        AtomicInteger otherInside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger tasksDone = new AtomicInteger();
        AtomicInteger sectionsDone = new AtomicInteger();
        int sections = 150;

        Future<?> blocking = tasks.submit(() -> {
            for (int i = 0; i < sections; i++) {
                assertThat(lock.tryLock(10, 30, TimeUnit.SECONDS, owner)).isTrue();
                enter(ownerInside, otherInside, overlaps);
                ownerInside.decrementAndGet();
                lock.unlock(owner);
                sectionsDone.incrementAndGet();
            }
            tasksDone.incrementAndGet();
            return null;
        });
        Future<?> async = tasks.submit(() -> {
            for (int i = 0; i < sections; i++) {
                assertThat(lock.tryLockAsync(10, -1, TimeUnit.SECONDS, owner)
                                .toCompletableFuture()
                                .get(20, TimeUnit.SECONDS))
                        .isTrue();
                enter(ownerInside, otherInside, overlaps);
                ownerInside.decrementAndGet();
                lock.unlockAsync(owner).toCompletableFuture().get(20, TimeUnit.SECONDS);
                sectionsDone.incrementAndGet();
            }
            tasksDone.incrementAndGet();
            return null;
        });
        Future<?> other = tasks.submit(() -> {
            while (tasksDone.get() < 2 && !Thread.currentThread().isInterrupted()) {
                if (contender.tryLock(0, 30, TimeUnit.SECONDS)) {
                    enter(otherInside, ownerInside, overlaps);
                    otherInside.decrementAndGet();
                    contender.unlock();
                }
            }
            return null;
        });
        // Bound by progress, not time: a busy machine does the 300 sections slowly, not wrongly.
        Progress.await("the blocking task", blocking, sectionsDone::get, Duration.ofSeconds(30));
        Progress.await("the asynchronous task", async, sectionsDone::get, Duration.ofSeconds(30));
        other.get(30, TimeUnit.SECONDS);

        assertThat(overlaps.get()).as("sections shared with another client").isZero();
        assertThat(lock.isHeldBy(owner)).as("every hold unlocked").isFalse();
        assertThat(contender.tryLock(0, 30, TimeUnit.SECONDS))
                .as("free at the end")
                .isTrue();
        contender.unlock();
    }

    private static void enter(AtomicInteger mine, AtomicInteger theirs, AtomicInteger overlaps)
            throws InterruptedException {
        mine.incrementAndGet();
        if (theirs.get() > 0) {
            overlaps.incrementAndGet();
        }
        Thread.sleep(1);
        if (theirs.get() > 0) {
            overlaps.incrementAndGet();
        }
    }
}
