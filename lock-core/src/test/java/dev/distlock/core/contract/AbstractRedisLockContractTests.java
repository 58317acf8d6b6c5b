package dev.distlock.core.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockListener;
import dev.distlock.core.Parked;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * What every lock kind promises, run against a real Redis. A kind's test class extends this and
 * says how to make its lock, and which lock contends with it (the same kind, unless it shares).
 */
public abstract class AbstractRedisLockContractTests {

    /** Watchdog lease used by the contract clients: short, so renewal is observable quickly. */
    protected static final Duration WATCHDOG = Duration.ofSeconds(2);

    protected RedisServer redis;
    protected LockClient clientA;
    protected LockClient clientB;
    protected String name;
    private final List<ExecutorService> executors = new ArrayList<>();

    /**
     * Returns a lock of the kind under test.
     * @param client the client
     * @param name lock name
     * @return the lock
     */
    protected abstract RedisLock newLock(LockClient client, String name);

    /**
     * Returns a lock that cannot be held together with {@link #newLock}; by default the same kind.
     * @param client the client
     * @param name lock name
     * @return the contending lock
     */
    protected RedisLock newContender(LockClient client, String name) {
        return newLock(client, name);
    }

    /**
     * Returns whether two holders of {@link #newLock} exclude each other (false for read locks,
     * whose exclusion is checked against {@link #newContender}).
     * @return whether the kind is exclusive
     */
    protected boolean exclusive() {
        return true;
    }

    @BeforeEach
    void setUpClients(TestInfo info) {
        redis = RedisServers.shared();
        clientA = newClient();
        clientB = newClient();
        name = getClass().getSimpleName() + ":"
                + info.getTestMethod().orElseThrow().getName() + ":" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        executors.forEach(ExecutorService::shutdownNow);
        closeClient(clientA);
        closeClient(clientB);
    }

    /**
     * Returns a new client for the kind under test, by default one on the shared standalone server;
     * override to run the contract on another topology. The contract closes it with
     * {@link #closeClient}.
     * @return the client
     */
    protected LockClient newClient() {
        return LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .watchdogTimeout(WATCHDOG)
                .build());
    }

    /**
     * Closes a client made by {@link #newClient()}; override when a kind's locks span more clients
     * than the one the contract sees (a red lock's other masters), so that they close together.
     * @param client the client
     */
    protected void closeClient(LockClient client) {
        client.close();
    }

    /**
     * Returns whether a waiting acquisition of this kind parks until the unlock message wakes it,
     * so that {@link Parked} counts it; a kind that retries in rounds instead (a red lock) returns
     * false, and the contract then tells a waiting acquisition by its unfinished future.
     * @return whether waiters park
     */
    protected boolean parksWaiters() {
        return true;
    }

    /**
     * Returns the name {@link RedisLock#getName()} reports for a lock made by {@link #newLock} with
     * the given name; a composite reports its members' names.
     * @param name the name given to {@link #newLock}
     * @return the expected name
     */
    protected String expectedName(String name) {
        return name;
    }

    protected <T> Future<T> inOtherThread(java.util.concurrent.Callable<T> task) {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        executors.add(executor);
        return executor.submit(task);
    }

    @Test
    void shouldAcquireAndRelease() throws Exception {
        RedisLock lock = newLock(clientA, name);
        assertThat(lock.tryLock(1, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.isLocked()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.getName()).isEqualTo(expectedName(name));
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void shouldExcludeAnotherClient() throws Exception {
        RedisLock lock = newLock(clientA, name);
        lock.lock(30, TimeUnit.SECONDS);
        assertThat(inOtherThread(() -> newContender(clientB, name).tryLock()).get())
                .isFalse();
        assertThat(inOtherThread(() -> newContender(clientA, name).tryLock()).get())
                .isFalse();
        lock.unlock();
        assertThat(inOtherThread(() -> {
                            RedisLock other = newContender(clientB, name);
                            boolean got = other.tryLock();
                            other.unlock();
                            return got;
                        })
                        .get())
                .isTrue();
    }

    @Test
    void shouldCountReentrantHolds() throws Exception {
        RedisLock lock = newLock(clientA, name);
        lock.lock();
        assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        lock.unlock();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        assertThat(lock.isLocked()).isTrue();
        lock.unlock();
        assertThat(lock.getHoldCount()).isZero();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void shouldRejectUnlockByNonOwner() throws Exception {
        RedisLock lock = newLock(clientA, name);
        lock.lock(30, TimeUnit.SECONDS);
        Future<Throwable> otherThread =
                inOtherThread(() -> catchThrowable(() -> newLock(clientA, name).unlock()));
        assertThat(otherThread.get())
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(name)
                .hasMessageContaining(clientA.getId());
        assertThatThrownBy(() -> newLock(clientB, name).unlock())
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(clientB.getId());
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
    }

    @Test
    void shouldRejectUnlockWhenNotLocked() {
        assertThatThrownBy(() -> newLock(clientA, name).unlock())
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(name)
                .hasMessageContaining(Thread.currentThread().getName());
    }

    @Test
    void shouldExpireLease() throws Exception {
        RedisLock lock = newLock(clientA, name);
        // Long enough that a stalled machine does not see the lease end before it reads the TTL.
        assertThat(lock.tryLock(0, 1000, TimeUnit.MILLISECONDS)).isTrue();
        assertThat(lock.remainTimeToLive()).isBetween(1L, 1000L);
        await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
        assertThat(inOtherThread(() -> newContender(clientB, name).tryLock(0, 10, TimeUnit.SECONDS))
                        .get())
                .isTrue();
    }

    @Test
    void shouldKeepWatchdogLeaseAliveUntilUnlock() throws Exception {
        RedisLock lock = newLock(clientA, name);
        lock.lock();
        // Three watchdog timeouts: without renewal the key would have expired twice over.
        await().during(WATCHDOG.multipliedBy(3))
                .atMost(WATCHDOG.multipliedBy(4))
                .until(() -> lock.remainTimeToLive() > 0);
        lock.unlock();
        assertThat(lock.remainTimeToLive()).isEqualTo(-2);
        assertThat(clientA.heldLocks()).isEmpty();
    }

    @Test
    void shouldReturnFalseWhenWaitIsSpent() throws Exception {
        newLock(clientA, name).lock(30, TimeUnit.SECONDS);
        long start = System.nanoTime();
        boolean acquired = inOtherThread(() -> newContender(clientB, name).tryLock(1, 30, TimeUnit.SECONDS))
                .get();
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(acquired).isFalse();
        assertThat(elapsedMillis).isBetween(900L, 4000L);
    }

    @Test
    void shouldTryOnceForANegativeWaitAsRedissonDoes() throws Exception {
        RedisLock holder = newContender(clientA, name);
        long holderId = RedisLock.newOwnerId();
        assertThat(holder.tryLock(0, 30, TimeUnit.SECONDS, holderId)).isTrue();
        RedisLock lock = newLock(clientB, name);
        List<CompletableFuture<Boolean>> calls = new ArrayList<>();
        for (long wait : new long[] {-1, -2, Long.MIN_VALUE}) {
            calls.add(lock.tryLockAsync(wait, 10, TimeUnit.SECONDS, RedisLock.newOwnerId())
                    .toCompletableFuture());
        }
        long start = System.nanoTime();
        boolean blocking = inOtherThread(() -> newLock(clientB, name).tryLock(-1, 10, TimeUnit.SECONDS))
                .get(10, TimeUnit.SECONDS);
        for (CompletableFuture<Boolean> call : calls) {
            assertThat(call.get(10, TimeUnit.SECONDS))
                    .as("one attempt, refused")
                    .isFalse();
        }
        assertThat(blocking).isFalse();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3000);
        holder.unlock(holderId);
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(-1, 10, TimeUnit.SECONDS, owner))
                .as("a free lock is taken")
                .isTrue();
        lock.unlock(owner);
    }

    @Test
    void shouldWaitAsLongAsNeededWithWaitForever() throws Exception {
        RedisLock holder = newContender(clientA, name);
        long holderId = RedisLock.newOwnerId();
        assertThat(holder.tryLock(0, 30, TimeUnit.SECONDS, holderId)).isTrue();
        RedisLock lock = newLock(clientB, name);
        long owner = RedisLock.newOwnerId();
        CompletableFuture<Boolean> waiting = lock.tryLockAsync(RedisLock.WAIT_FOREVER, 30, TimeUnit.SECONDS, owner)
                .toCompletableFuture();
        await().pollDelay(Duration.ofMillis(1500))
                .atMost(Duration.ofSeconds(10))
                .until(() -> !waiting.isDone());
        holder.unlock(holderId);
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
        lock.unlock(owner);
    }

    @Test
    void shouldWakeWaiterPromptlyOnRelease() throws Exception {
        RedisLock lock = newLock(clientA, name);
        lock.lock(60, TimeUnit.SECONDS);
        CountDownLatch waiting = new CountDownLatch(1);
        AtomicLong acquiredAt = new AtomicLong();
        Future<Boolean> waiter = inOtherThread(() -> {
            RedisLock other = newContender(clientB, name);
            waiting.countDown();
            boolean got = other.tryLock(20, 30, TimeUnit.SECONDS);
            acquiredAt.set(System.nanoTime());
            other.unlock();
            return got;
        });
        waiting.await();
        await().pollDelay(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> !waiter.isDone());
        long releasedAt = System.nanoTime();
        lock.unlock();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
        // The holder's lease was 60 s: only the unlock message can explain a wake-up this quick.
        assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - releasedAt)).isLessThan(2000);
    }

    @Test
    void shouldAbortWaitOnInterrupt() throws Exception {
        newLock(clientA, name).lock(60, TimeUnit.SECONDS);
        AtomicInteger outcome = new AtomicInteger();
        Thread waiter = new Thread(() -> {
            RedisLock other = newContender(clientB, name);
            try {
                other.lockInterruptibly();
                outcome.set(1);
            } catch (InterruptedException ex) {
                outcome.set(other.isHeldByCurrentThread() ? 3 : 2);
            }
        });
        waiter.start();
        await().pollDelay(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(5))
                .until(() ->
                        waiter.getState() == Thread.State.TIMED_WAITING || waiter.getState() == Thread.State.WAITING);
        waiter.interrupt();
        waiter.join(5000);
        assertThat(outcome.get()).as("2 = interrupted without holding the lock").isEqualTo(2);
    }

    @Test
    void shouldRestoreInterruptFlagAfterUninterruptibleLock() throws Exception {
        Boolean flagKept = inOtherThread(() -> {
                    Thread.currentThread().interrupt();
                    RedisLock lock = newLock(clientA, name);
                    lock.lock(30, TimeUnit.SECONDS);
                    boolean interrupted = Thread.interrupted();
                    lock.unlock();
                    return interrupted;
                })
                .get();
        assertThat(flagKept).isTrue();
    }

    @Test
    void shouldReportRemainingTimeToLive() throws Exception {
        RedisLock lock = newLock(clientA, name);
        assertThat(lock.remainTimeToLive()).isEqualTo(-2);
        lock.lock(10, TimeUnit.SECONDS);
        assertThat(lock.remainTimeToLive()).isBetween(5_000L, 10_000L);
        lock.unlock();
    }

    @Test
    void shouldForceUnlockAndWakeWaiter() throws Exception {
        RedisLock lock = newLock(clientA, name);
        lock.lock(60, TimeUnit.SECONDS);
        Future<Boolean> waiter = inOtherThread(() -> newContender(clientB, name).tryLock(20, 30, TimeUnit.SECONDS));
        await().pollDelay(Duration.ofMillis(200)).until(() -> !waiter.isDone());
        assertThat(newLock(clientB, name).forceUnlock()).isTrue();
        assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(newLock(clientB, name + ":absent").forceUnlock()).isFalse();
    }

    @Test
    void shouldKeepCounterExactUnderContention() throws Exception {
        assumeTrue(exclusive(), "holders of this kind share the lock");
        int threadsPerClient = 4;
        int rounds = 40;
        int[] counter = {0};
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threadsPerClient * 2);
        executors.add(pool);
        for (LockClient client : List.of(clientA, clientB)) {
            for (int t = 0; t < threadsPerClient; t++) {
                workers.add(CompletableFuture.runAsync(
                        () -> {
                            RedisLock lock = newLock(client, name);
                            for (int i = 0; i < rounds; i++) {
                                lock.lock(30, TimeUnit.SECONDS);
                                try {
                                    if (inside.incrementAndGet() > 1) {
                                        overlaps.incrementAndGet();
                                    }
                                    int read = counter[0];
                                    Thread.yield();
                                    counter[0] = read + 1;
                                    inside.decrementAndGet();
                                } finally {
                                    lock.unlock();
                                }
                            }
                        },
                        pool));
            }
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        assertThat(overlaps.get()).isZero();
        assertThat(counter[0]).isEqualTo(2 * threadsPerClient * rounds);
    }

    @Test
    void shouldLetClosedClientsLockExpire() throws Exception {
        LockClient closing = newClient();
        RedisLock lock = newLock(closing, name);
        lock.lock();
        closeClient(closing);
        assertThat(newLock(clientB, name).isLocked()).isTrue();
        await().atMost(WATCHDOG.plusSeconds(3))
                .until(() -> !newLock(clientB, name).isLocked());
        // In another thread, bounded: a lock that waited for its closed client forever would hang the build.
        Future<Throwable> relock = inOtherThread(() -> catchThrowable(lock::lock));
        assertThat(relock.get(10, TimeUnit.SECONDS))
                .as("lock() of a closed client fails at once")
                .hasMessageContaining("closed")
                .hasMessageContaining(name);
    }

    @Test
    void shouldRejectBadArguments() {
        assertThatNullPointerException()
                .isThrownBy(() -> newLock(clientA, null))
                .withMessageContaining("'name'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> newLock(clientA, " "))
                .withMessageContaining("'name'");
        RedisLock lock = newLock(clientA, name);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lock.tryLock(0, 0, TimeUnit.SECONDS))
                .withMessageContaining("'leaseTime'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lock.lock(-5, TimeUnit.SECONDS))
                .withMessageContaining("'leaseTime'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lock.lock(Long.MAX_VALUE, TimeUnit.DAYS))
                .withMessageContaining("'leaseTime'");
        assertThatNullPointerException()
                .isThrownBy(() -> lock.tryLock(1, 1, null))
                .withMessageContaining("'unit'");
        assertThatNullPointerException().isThrownBy(() -> lock.lock(1, null)).withMessageContaining("'unit'");
        assertThatThrownBy(lock::newCondition)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining(name);
        assertThat(lock.isLocked()).as("bad calls leave nothing behind").isFalse();
    }

    @Test
    void shouldAcquireAndReleaseAsynchronously() throws Exception {
        RedisLock lock = newLock(clientA, name);
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLockAsync(0, 30, TimeUnit.SECONDS, owner)
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS))
                .isTrue();
        assertThat(lock.isHeldBy(owner)).isTrue();
        assertThat(newContender(clientB, name)
                        .tryLockAsync(0, 30, TimeUnit.SECONDS, RedisLock.newOwnerId())
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS))
                .as("excluded")
                .isFalse();
        lock.unlockAsync(owner).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(lock.isHeldBy(owner)).isFalse();
        assertThat(clientA.heldLocks()).isEmpty();
        long other = RedisLock.newOwnerId();
        lock.lockAsync(30, TimeUnit.SECONDS, other).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(lock.isHeldBy(other)).isTrue();
        lock.unlockAsync(other).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void shouldFailAsyncUnlockByNonOwnerWithIllegalMonitorState() throws Exception {
        RedisLock lock = newLock(clientA, name);
        CompletableFuture<Void> unlock =
                lock.unlockAsync(RedisLock.newOwnerId()).toCompletableFuture();
        assertThatThrownBy(() -> unlock.get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(name);
    }

    @Test
    void shouldHandAsyncWaitersTheLockInTurnWithoutAThreadEach() throws Exception {
        assumeTrue(exclusive(), "holders of this kind share");
        RedisLock first = newLock(clientA, name);
        long firstOwner = RedisLock.newOwnerId();
        assertThat(first.tryLock(0, 30, TimeUnit.SECONDS, firstOwner)).isTrue();
        int threadsBefore =
                java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount();
        int waiters = 60;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            RedisLock lock = newContender(i % 2 == 0 ? clientA : clientB, name);
            long owner = RedisLock.newOwnerId();
            done.add(lock.tryLockAsync(60, 30, TimeUnit.SECONDS, owner)
                    .toCompletableFuture()
                    .thenCompose(acquired -> {
                        assertThat(acquired).isTrue();
                        if (inside.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        inside.decrementAndGet();
                        return lock.unlockAsync(owner);
                    }));
        }
        if (parksWaiters()) {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> Parked.waiters(clientA) + Parked.waiters(clientB) >= waiters / 2);
        } else {
            await().pollDelay(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> done.stream().noneMatch(CompletableFuture::isDone));
        }
        int threadsWaiting =
                java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount();
        assertThat(threadsWaiting - threadsBefore)
                .as("threads added for %d waiters", waiters)
                .isLessThan(20);
        assertThat(done).noneMatch(CompletableFuture::isDone);
        first.unlock(firstOwner);
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertThat(overlaps).hasValue(0);
        assertThat(first.isLocked()).isFalse();
    }

    @Test
    void shouldAbandonAnAsyncWaitWhenCancelled() throws Exception {
        assumeTrue(exclusive(), "holders of this kind share");
        RedisLock holder = newLock(clientA, name);
        long holderId = RedisLock.newOwnerId();
        assertThat(holder.tryLock(0, 30, TimeUnit.SECONDS, holderId)).isTrue();
        RedisLock waiter = newContender(clientB, name);
        long waiterId = RedisLock.newOwnerId();
        CompletableFuture<Boolean> waiting =
                waiter.tryLockAsync(30, 30, TimeUnit.SECONDS, waiterId).toCompletableFuture();
        if (parksWaiters()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> Parked.waiters(clientB) == 1);
        } else {
            await().pollDelay(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> !waiting.isDone());
        }
        assertThat(waiting.cancel(false)).isTrue();
        if (parksWaiters()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> Parked.waiters(clientB) == 0);
        }
        holder.unlock(holderId);
        // A third owner gets the lock at once: the cancelled waiter neither took it nor still queues for it.
        RedisLock third = newContender(clientA, name);
        long thirdId = RedisLock.newOwnerId();
        assertThat(third.tryLock(2, 30, TimeUnit.SECONDS, thirdId)).isTrue();
        assertThat(waiter.isHeldBy(waiterId)).isFalse();
        assertThat(clientB.heldLocks()).isEmpty();
        third.unlock(thirdId);
    }

    @Test
    void shouldAbandonALockAsyncWaitWhenCancelled() throws Exception {
        RedisLock holder = newContender(clientA, name);
        long holderId = RedisLock.newOwnerId();
        assertThat(holder.tryLock(0, 30, TimeUnit.SECONDS, holderId)).isTrue();
        RedisLock waiter = newLock(clientB, name);
        long waiterId = RedisLock.newOwnerId();
        // The watchdog lease: a hold nobody knows of would be renewed for as long as the client lives.
        CompletableFuture<Void> waiting = waiter.lockAsync(RedisLock.WATCHDOG_LEASE, TimeUnit.MILLISECONDS, waiterId)
                .toCompletableFuture();
        await().pollDelay(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(10))
                .until(() -> !waiting.isDone() && (!parksWaiters() || Parked.waiters(clientB) == 1));
        assertThat(waiting.cancel(false)).isTrue();
        if (parksWaiters()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> Parked.waiters(clientB) == 0);
        }
        holder.unlock(holderId);
        // A third owner gets the lock at once: the cancelled waiter neither took it nor still queues for it.
        RedisLock third = newContender(clientA, name);
        long thirdId = RedisLock.newOwnerId();
        assertThat(third.tryLock(2, 30, TimeUnit.SECONDS, thirdId)).isTrue();
        assertThat(waiter.isHeldBy(waiterId)).isFalse();
        assertThat(clientB.heldLocks()).isEmpty();
        third.unlock(thirdId);
        assertThat(newLock(clientA, name).isLocked()).isFalse();
    }

    @Test
    void shouldGiveBackAHoldGrantedAsTheCancelOfLockAsyncRacedIt() throws Exception {
        RedisLock lock = newLock(clientA, name);
        for (int i = 0; i < 20; i++) {
            long owner = RedisLock.newOwnerId();
            CompletableFuture<Void> locking =
                    lock.lockAsync(30, TimeUnit.SECONDS, owner).toCompletableFuture();
            if (i % 2 == 1) {
                // Half of the cancels come once the first attempt is under way or answered.
                Thread.sleep(i % 4 == 1 ? 1 : 5);
            }
            if (!locking.cancel(false)) {
                // Locked before the cancel: an ordinary hold, released the ordinary way.
                locking.get();
                lock.unlock(owner);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> !lock.isHeldBy(owner));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> clientA.heldLocks().isEmpty());
        assertThat(newContender(clientB, name).tryLock(0, 30, TimeUnit.SECONDS))
                .as("free again")
                .isTrue();
    }

    @Test
    void shouldKeepTheOuterLeaseWhenACancelledReentryIsGivenBack() throws Exception {
        // A re-entry granted before the cancel is an ordinary hold, whose unlock keeps the longest lease
        // still owed: only a re-entry the cancel beat is given back. Tried until the cancel wins.
        for (int round = 0; round < 20; round++) {
            RedisLock lock = newLock(clientA, name + ":" + round);
            long owner = RedisLock.newOwnerId();
            assertThat(lock.tryLock(0, 3, TimeUnit.SECONDS, owner)).isTrue();
            long grantedAt = System.nanoTime();
            CompletableFuture<Boolean> reentry =
                    lock.tryLockAsync(0, 30, TimeUnit.SECONDS, owner).toCompletableFuture();
            if (!reentry.cancel(false)) {
                assertThat(reentry.get()).isTrue();
                lock.unlock(owner);
                lock.unlock(owner);
                continue;
            }
            // Cancelled before its reply: the engine gives the re-entry back, which must not leave its 30 s lease.
            await().atMost(Duration.ofSeconds(8)).untilAsserted(() -> {
                long ttl = lock.remainTimeToLive();
                assertThat(ttl).as("lease left").isLessThanOrEqualTo(3000);
                assertThat(ttl).as("expired").isEqualTo(-2);
            });
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - grantedAt))
                    .as("the outer hold's 3 s lease, not the re-entry's 30 s")
                    .isLessThan(8000);
            return;
        }
        throw new AssertionError("the cancel never beat the re-entry's grant in 20 rounds");
    }

    @Test
    void shouldGiveBackAWatchdogReentryCancelledAsItsGrantIsBooked() throws Exception {
        // The cancel lands after the grant is booked and before the caller's future completes: the
        // listener told of the grant cancels it, which a chaos run hit by chance. Given back as an
        // unlock, it would end the outer 2 s grant and leave the watchdog one, renewed for good.
        AtomicReference<CompletableFuture<Boolean>> reentry = new AtomicReference<>();
        AtomicInteger cancelledByListener = new AtomicInteger();
        LockListener cancelOnGrant = new LockListener() {
            @Override
            public void onAcquired(String lockName, long ownerId, long waitNanos) {
                CompletableFuture<Boolean> pending = reentry.getAndSet(null);
                if (pending != null && pending.cancel(false)) {
                    cancelledByListener.incrementAndGet();
                }
            }
        };
        // A reply that comes before the future is published is not cancelled: tried again then.
        for (int round = 0; round < 10 && cancelledByListener.get() == 0; round++) {
            RedisLock lock = newLock(clientA, name + ":" + round).withListener(cancelOnGrant);
            long owner = RedisLock.newOwnerId();
            assertThat(lock.tryLock(0, 2, TimeUnit.SECONDS, owner)).isTrue();
            long grantedAt = System.nanoTime();
            CompletableFuture<Boolean> pending = lock.tryLockAsync(
                            0, RedisLock.WATCHDOG_LEASE, TimeUnit.MILLISECONDS, owner)
                    .toCompletableFuture();
            reentry.set(pending);
            await().atMost(Duration.ofSeconds(10)).until(pending::isDone);
            if (!pending.isCancelled()) {
                reentry.set(null);
                lock.unlock(owner);
                lock.unlock(owner);
                continue;
            }
            // Given back, the re-entry leaves the outer hold its own 2 s lease, after which it expires.
            await().atMost(Duration.ofSeconds(8)).untilAsserted(() -> assertThat(lock.remainTimeToLive())
                    .as("lease left after the cancelled watchdog re-entry")
                    .isEqualTo(-2));
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - grantedAt))
                    .as("the outer hold's 2 s lease, not a watchdog-renewed one")
                    .isLessThan(8000);
        }
        assertThat(cancelledByListener)
                .as("re-entries cancelled as their grant was booked")
                .hasValue(1);
    }

    @Test
    void shouldGiveBackAHoldGrantedAsTheCancelRacedIt() throws Exception {
        RedisLock lock = newLock(clientA, name);
        for (int i = 0; i < 20; i++) {
            long owner = RedisLock.newOwnerId();
            CompletableFuture<Boolean> attempt =
                    lock.tryLockAsync(0, 30, TimeUnit.SECONDS, owner).toCompletableFuture();
            if (!attempt.cancel(false)) {
                // Granted before the cancel: an ordinary hold, released the ordinary way.
                assertThat(attempt.get()).isTrue();
                lock.unlock(owner);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> !lock.isHeldBy(owner));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> clientA.heldLocks().isEmpty());
        assertThat(newContender(clientB, name).tryLock(0, 30, TimeUnit.SECONDS))
                .as("free again")
                .isTrue();
    }

    @Test
    void shouldRejectBadArgumentsOfAsyncCallsAtCallTime() {
        RedisLock lock = newLock(clientA, name);
        long owner = RedisLock.newOwnerId();
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lock.tryLockAsync(0, 0, TimeUnit.SECONDS, owner))
                .withMessageContaining("'leaseTime'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lock.lockAsync(-5, TimeUnit.SECONDS, owner))
                .withMessageContaining("'leaseTime'");
        assertThatNullPointerException()
                .isThrownBy(() -> lock.tryLockAsync(1, 1, null, owner))
                .withMessageContaining("'unit'");
        assertThat(lock.isLocked()).as("bad calls leave nothing behind").isFalse();
    }

    @Test
    void shouldFailAsyncCallsOfAClosedClientWithLockException() {
        LockClient closed = newClient();
        RedisLock lock = newLock(closed, name);
        closeClient(closed);
        CompletableFuture<Boolean> attempt = lock.tryLockAsync(0, 30, TimeUnit.SECONDS, RedisLock.newOwnerId())
                .toCompletableFuture();
        assertThatThrownBy(() -> attempt.get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(dev.distlock.core.LockException.class)
                .hasMessageContaining("closed");
    }

    private static Throwable catchThrowable(Runnable call) {
        try {
            call.run();
            return null;
        } catch (Throwable ex) {
            return ex;
        }
    }
}
