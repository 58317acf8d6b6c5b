package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The waiters of one client for one lock wait in a local line: only the head tries in Redis, the
 * others get their turn in arrival order as the head wins or gives up. Tries are counted by the
 * server itself ({@code EVALSHA} calls of a dedicated server, while the lock is held by another
 * client with a fixed lease, so nothing else runs a script).
 */
class LocalWaiterLineTests {

    private static final int WAITERS = 40;

    private static RedisServer redis;
    private LockClient waiting;
    private LockClient other;
    private String name;

    @BeforeAll
    static void startServer() {
        redis = RedisServers.start();
    }

    @AfterAll
    static void stopServer() {
        redis.close();
    }

    @BeforeEach
    void setUp() {
        name = "line:" + UUID.randomUUID();
        waiting = LockClient.create(redis.uri());
        other = LockClient.create(redis.uri());
    }

    @AfterEach
    void tearDown() {
        waiting.close();
        other.close();
    }

    static Stream<Arguments> kinds() {
        Function<LockClient, Function<String, RedisLock>> reentrant = client -> client::getLock;
        Function<LockClient, Function<String, RedisLock>> fenced = client -> client::getFencedLock;
        Function<LockClient, Function<String, RedisLock>> write =
                client -> n -> client.getReadWriteLock(n).writeLock();
        return Stream.of(
                Arguments.of("reentrant", reentrant), Arguments.of("fenced", fenced), Arguments.of("write", write));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void onlyTheHeadOfTheLineTriesAndTheLineIsServedInArrivalOrder(
            String kind, Function<LockClient, Function<String, RedisLock>> locks) throws Exception {
        RedisLock held = holdElsewhere(locks);
        long scriptsBefore = calls("evalsha");
        RedisLock lock = locks.apply(waiting).apply(name);
        List<Integer> granted = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < WAITERS; i++) {
            int index = i;
            long owner = RedisLock.newOwnerId();
            done.add(lock.tryLockAsync(30, 60, TimeUnit.SECONDS, owner)
                    .thenCompose(acquired -> {
                        assertThat(acquired).isTrue();
                        granted.add(index);
                        return lock.unlockAsync(owner);
                    })
                    .toCompletableFuture());
        }
        // The head's first try and the try once subscribed: refused; the others wait locally.
        await().atMost(Duration.ofSeconds(10)).until(() -> calls("evalsha") - scriptsBefore >= 1);
        await().pollDelay(Duration.ofMillis(500)).until(() -> true);
        assertThat(calls("evalsha") - scriptsBefore)
                .as("tries while %d local waiters wait for a lock held elsewhere", WAITERS)
                .isLessThanOrEqualTo(2);

        long handOffsBefore = calls("evalsha");
        held.unlock();
        dev.distlock.core.test.Progress.awaitAll("the hand-offs down the line", done, Duration.ofSeconds(20));
        assertThat(granted).as("grants in arrival order").isEqualTo(rangeTo(WAITERS));
        // Per waiter: its granting try and its release. The next in line waits for the release it will
        // hear instead of trying a lock its own client holds (a few tries of slow hand-offs allowed).
        assertThat(calls("evalsha") - handOffsBefore)
                .as("scripts for %d hand-offs inside one client", WAITERS)
                .isLessThanOrEqualTo(2L * WAITERS + 5);
        assertThat(lock.isLocked()).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aWaitThatEndsInTheLineMakesOneAttemptAndLeavesNothingBehind(
            String kind, Function<LockClient, Function<String, RedisLock>> locks) throws Exception {
        RedisLock held = holdElsewhere(locks);
        RedisLock lock = locks.apply(waiting).apply(name);
        long head = RedisLock.newOwnerId();
        long start = calls("evalsha");
        CompletableFuture<Boolean> patient =
                lock.tryLockAsync(30, 60, TimeUnit.SECONDS, head).toCompletableFuture();
        awaitHeadParked(start);
        long before = calls("evalsha");
        long impatient = RedisLock.newOwnerId();
        assertThat(lock.tryLockAsync(300, 60_000, TimeUnit.MILLISECONDS, impatient)
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS))
                .isFalse();
        assertThat(calls("evalsha") - before)
                .as("the impatient waiter's one attempt")
                .isEqualTo(1);
        assertThat(lock.isHeldBy(impatient)).isFalse();

        held.unlock();
        assertThat(patient.get(10, TimeUnit.SECONDS)).isTrue();
        releaseLast(lock, head);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void theNextInLineTriesSoonWhenItsOwnClientsHoldVanishesWithoutARelease(
            String kind, Function<LockClient, Function<String, RedisLock>> locks) throws Exception {
        RedisLock lock = locks.apply(waiting).apply(name);
        long holder = RedisLock.newOwnerId();
        long start = calls("evalsha");
        RedisLock held = holdElsewhere(locks);
        CompletableFuture<Boolean> head =
                lock.tryLockAsync(30, 60, TimeUnit.SECONDS, holder).toCompletableFuture();
        long next = RedisLock.newOwnerId();
        CompletableFuture<Boolean> behind =
                lock.tryLockAsync(30, 60, TimeUnit.SECONDS, next).toCompletableFuture();
        awaitHeadParked(start);
        held.unlock();
        assertThat(head.get(10, TimeUnit.SECONDS)).isTrue();
        // The head's hold (60 s lease) disappears without a release message, as after a failover.
        redis.command("DEL", name);
        assertThat(behind.get(10, TimeUnit.SECONDS))
                .as("the next in line did not wait out the vanished hold's 60 s lease")
                .isTrue();
        lock.unlockAsync(next).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aCallerCancelledInTheLineLeavesItAndTheNextOneGetsItsTurn(
            String kind, Function<LockClient, Function<String, RedisLock>> locks) throws Exception {
        RedisLock held = holdElsewhere(locks);
        RedisLock lock = locks.apply(waiting).apply(name);
        long first = RedisLock.newOwnerId();
        long second = RedisLock.newOwnerId();
        long third = RedisLock.newOwnerId();
        long start = calls("evalsha");
        CompletableFuture<Boolean> head =
                lock.tryLockAsync(30, 60, TimeUnit.SECONDS, first).toCompletableFuture();
        CompletableFuture<Boolean> cancelled =
                lock.tryLockAsync(30, 60, TimeUnit.SECONDS, second).toCompletableFuture();
        CompletableFuture<Boolean> last =
                lock.tryLockAsync(30, 60, TimeUnit.SECONDS, third).toCompletableFuture();
        awaitHeadParked(start);
        assertThat(cancelled.cancel(false)).isTrue();
        // The head gives up: the cancelled caller must not hold up the one behind it.
        head.cancel(false);

        held.unlock();
        assertThat(last.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.isHeldBy(third)).isTrue();
        assertThat(lock.isHeldBy(second)).isFalse();
        assertThat(lock.isHeldBy(first)).isFalse();
        releaseLast(lock, third);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void anOwnerThatHoldsTheLockReentersPastItsOwnLine(
            String kind, Function<LockClient, Function<String, RedisLock>> locks) throws Exception {
        RedisLock lock = locks.apply(waiting).apply(name);
        long holder = RedisLock.newOwnerId();
        assertThat(lock.tryLockAsync(0, 60, TimeUnit.SECONDS, holder)
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS))
                .isTrue();
        long waiter = RedisLock.newOwnerId();
        long start = calls("evalsha");
        CompletableFuture<Boolean> behind =
                lock.tryLockAsync(30, 60, TimeUnit.SECONDS, waiter).toCompletableFuture();
        awaitHeadParked(start);
        if (!kind.equals("write")) {
            // A second waiter queues behind the first; the holder's re-entry must not queue behind both.
            lock.tryLockAsync(30, 60, TimeUnit.SECONDS, RedisLock.newOwnerId());
        }
        assertThat(lock.tryLockAsync(30, 60, TimeUnit.SECONDS, holder)
                        .toCompletableFuture()
                        .get(5, TimeUnit.SECONDS))
                .as("re-entry while others wait")
                .isTrue();
        lock.unlockAsync(holder).toCompletableFuture().get(10, TimeUnit.SECONDS);
        lock.unlockAsync(holder).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(behind.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void theNextInLineWaitsNoLongerThanTheLeaseItsOwnClientsHolderWasGiven(
            String kind, Function<LockClient, Function<String, RedisLock>> locks) throws Exception {
        RedisLock held = holdElsewhere(locks);
        RedisLock lock = locks.apply(waiting).apply(name);
        int threads = 5;
        long start = calls("evalsha");
        List<CompletableFuture<Long>> grants = new ArrayList<>();
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            CompletableFuture<Long> grant = new CompletableFuture<>();
            grants.add(grant);
            // Each thread takes the lock for 150 ms and never unlocks: its lease lapses without a release.
            Thread waiter = new Thread(() -> {
                try {
                    grant.complete(lock.tryLock(30_000, 150, TimeUnit.MILLISECONDS) ? System.nanoTime() : -1);
                } catch (Throwable ex) {
                    grant.completeExceptionally(ex);
                }
            });
            waiters.add(waiter);
            waiter.start();
        }
        awaitHeadParked(start);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> waiters.stream().allMatch(t -> t.getState() == Thread.State.WAITING));

        long released = System.nanoTime();
        held.unlock();
        long last = Long.MIN_VALUE;
        for (CompletableFuture<Long> grant : grants) {
            long at = grant.get(30, TimeUnit.SECONDS);
            assertThat(at).as("every waiter gets the lock").isNotEqualTo(-1L);
            last = Math.max(last, at);
        }
        // Each hand-off comes as the previous 150 ms lease lapses: about 0.6 s for all five.
        assertThat(Duration.ofNanos(last - released))
                .as("five hand-offs of 150 ms leases inside one client")
                .isLessThan(Duration.ofMillis(2500));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aQueuedCallOfTheNewHoldersOwnerReentersAtOncePastTheLine(
            String kind, Function<LockClient, Function<String, RedisLock>> locks) throws Exception {
        RedisLock held = holdElsewhere(locks);
        RedisLock lock = locks.apply(waiting).apply(name);
        long owner = RedisLock.newOwnerId();
        long other = RedisLock.newOwnerId();
        long start = calls("evalsha");
        CompletableFuture<Void> first =
                lock.lockAsync(-1, TimeUnit.SECONDS, owner).toCompletableFuture();
        awaitHeadParked(start);
        CompletableFuture<Void> between =
                lock.lockAsync(-1, TimeUnit.SECONDS, other).toCompletableFuture();
        CompletableFuture<Void> second =
                lock.lockAsync(-1, TimeUnit.SECONDS, owner).toCompletableFuture();

        held.unlock();
        first.get(10, TimeUnit.SECONDS);
        // The owner now holds the lock: its second call re-enters without waiting for the other owner.
        second.get(5, TimeUnit.SECONDS);
        assertThat(between).as("the other owner still waits").isNotDone();

        lock.unlockAsync(owner).toCompletableFuture().get(10, TimeUnit.SECONDS);
        lock.unlockAsync(owner).toCompletableFuture().get(10, TimeUnit.SECONDS);
        between.get(10, TimeUnit.SECONDS);
        releaseLast(lock, other);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void closingTheClientEndsEveryWaitInTheLine(String kind, Function<LockClient, Function<String, RedisLock>> locks)
            throws Exception {
        RedisLock held = holdElsewhere(locks);
        RedisLock lock = locks.apply(waiting).apply(name);
        List<CompletableFuture<Boolean>> calls = new ArrayList<>();
        long start = calls("evalsha");
        for (int i = 0; i < 5; i++) {
            calls.add(lock.tryLockAsync(RedisLock.WAIT_FOREVER, 60, TimeUnit.SECONDS, RedisLock.newOwnerId())
                    .toCompletableFuture());
        }
        awaitHeadParked(start);
        waiting.close();
        for (CompletableFuture<Boolean> call : calls) {
            assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("closed");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void anInterruptedBlockingWaiterLeavesTheLine(String kind, Function<LockClient, Function<String, RedisLock>> locks)
            throws Exception {
        RedisLock held = holdElsewhere(locks);
        RedisLock lock = locks.apply(waiting).apply(name);
        long start = calls("evalsha");
        CompletableFuture<Boolean> head = lock.tryLockAsync(30, 60, TimeUnit.SECONDS, RedisLock.newOwnerId())
                .toCompletableFuture();
        awaitHeadParked(start);
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread blocked = new Thread(() -> {
            try {
                lock.tryLock(30, 60, TimeUnit.SECONDS);
                outcome.complete(null);
            } catch (Throwable ex) {
                outcome.complete(ex);
            }
        });
        blocked.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> blocked.getState() == Thread.State.WAITING);
        blocked.interrupt();
        assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        held.unlock();
        assertThat(head.get(10, TimeUnit.SECONDS)).isTrue();
    }

    /** @return the lock of the kind under test, held by the other client for 60 s */
    private RedisLock holdElsewhere(Function<LockClient, Function<String, RedisLock>> locks) {
        RedisLock held = locks.apply(other).apply(name);
        held.lock(60, TimeUnit.SECONDS);
        return held;
    }

    /** Releases an owner's only hold and checks that the lock is free: nothing was left behind. */
    private static void releaseLast(RedisLock lock, long owner) throws Exception {
        lock.unlockAsync(owner).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(lock.isLocked()).isFalse();
    }

    /** Waits until the head of the line tried and, refused, parked subscribed (its second try is sent). */
    private void awaitHeadParked(long scriptsBefore) {
        await().atMost(Duration.ofSeconds(10)).until(() -> calls("evalsha") - scriptsBefore >= 2);
    }

    private static List<Integer> rangeTo(int n) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            all.add(i);
        }
        return all;
    }

    private long calls(String command) {
        return redis.command("INFO", "commandstats")
                .lines()
                .filter(line -> line.startsWith("cmdstat_" + command + ":"))
                .map(line -> line.substring(line.indexOf("calls=") + 6, line.indexOf(',')))
                .mapToLong(Long::parseLong)
                .findFirst()
                .orElse(0);
    }
}
