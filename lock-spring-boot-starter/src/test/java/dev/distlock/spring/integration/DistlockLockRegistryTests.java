package dev.distlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * {@link DistlockLockRegistry} against a real Redis: the behaviour cases of Spring Integration's
 * {@code RedisLockRegistryTests} and of its shared registry tests ({@code DefaultLockRegistryTests}'
 * {@code executeLocked} cases), in our own words. "Another process" is a registry on a second
 * {@link LockClient}: two registries on one client are one process.
 *
 * <p>Cases that do not apply, and why:
 * <ul>
 *   <li>{@code concurrentObtainCapacityTest}, {@code concurrentObtainRemoveOrderTest},
 *       {@code concurrentObtainAccessRemoveOrderTest}, {@code setCapacityTest}: the registry has no
 *       capacity-bounded LRU cache of handles; idle handles are dropped by
 *       {@code expireUnusedOlderThan} only (covered by {@link #whenHandlesAreIdleThenExpiryDropsThemButNeverAHeldOne}).</li>
 *   <li>{@code testInitialiseWithCustomExecutor}, {@code testUnlockWhenInterruptedBlocksUntilKeyRemoved}'s
 *       frozen executor: there is no release executor to replace; the release runs on the caller's
 *       thread and survives its interrupt ({@link #whenHolderIsInterruptedThenUnlockStillReleasesAndKeepsTheFlag}).</li>
 *   <li>{@code testRenewFallbackWhenCasCadNotSupported}, {@code testUnlockFallbackWhenCasCadNotSupported}:
 *       Distlock uses Lua scripts only, never Redis 8.4's compare-and-set commands, so there is no
 *       fallback to test; they mock Redis templates, too.</li>
 *   <li>The {@code SPIN_LOCK}/{@code PUB_SUB_LOCK} parameterization: Distlock has one way to wait
 *       (woken by pub/sub, never spinning).</li>
 *   <li>{@code DefaultLockRegistryTests}' mask and striping cases: they test the in-memory registry's
 *       hashing, which this registry does not have.</li>
 * </ul>
 */
class DistlockLockRegistryTests {

    private static final RedisServer redis = RedisServers.shared();

    private LockClient processA;
    private LockClient processB;
    private DistlockLockRegistry registry;
    private DistlockLockRegistry otherProcess;
    private ExecutorService pool;
    private String key;

    @BeforeEach
    void setUp() {
        LockClientOptions options = LockClientOptions.builder()
                .uri(redis.uri())
                .watchdogTimeout(Duration.ofMillis(900))
                .build();
        processA = LockClient.create(options);
        processB = LockClient.create(options);
        registry = new DistlockLockRegistry(processA);
        otherProcess = new DistlockLockRegistry(processB);
        pool = Executors.newFixedThreadPool(4);
        key = "si:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        processA.close();
        processB.close();
    }

    private boolean keyExists(String name) {
        return redis.command("EXISTS", name).trim().equals("1");
    }

    private boolean otherProcessCanTake(String name) throws Exception {
        return pool.submit(() -> {
                    Lock lock = otherProcess.obtain(name);
                    boolean taken = lock.tryLock();
                    if (taken) {
                        lock.unlock();
                    }
                    return taken;
                })
                .get(10, TimeUnit.SECONDS);
    }

    @Test
    void whenLockedAndUnlockedRepeatedlyThenTheSameHandleServesAndExpiryDropsIt() throws Exception {
        DistributedLock first = registry.obtain(key);
        for (int i = 0; i < 10; i++) {
            Lock lock = registry.obtain(key);
            assertThat(lock).isSameAs(first);
            lock.lock();
            try {
                assertThat(keyExists(key)).isTrue();
                assertThat(otherProcessCanTake(key)).isFalse();
            } finally {
                lock.unlock();
            }
            lock.lockInterruptibly();
            lock.unlock();
        }
        assertThat(keyExists(key)).isFalse();
        registry.expireUnusedOlderThan(-1000);
        assertThat(registry.obtain(key)).isNotSameAs(first);
    }

    @Test
    void whenATimeToLiveIsGivenThenItIsTheLeaseInsteadOfTheRegistrys() throws Exception {
        registry.setLeaseTime(Duration.ofMillis(100));
        DistributedLock lock = registry.obtain(key);
        lock.lock(Duration.ofMillis(1500));
        Thread.sleep(300);
        assertThat(otherProcessCanTake(key)).isFalse();
        lock.unlock();

        assertThat(lock.tryLock(Duration.ofMillis(100), Duration.ofMillis(1500)))
                .isTrue();
        Thread.sleep(300);
        assertThat(otherProcessCanTake(key)).isFalse();
        lock.unlock();
        assertThat(keyExists(key)).isFalse();
    }

    @Test
    void whenTheLeaseRunsOutBeforeUnlockThenUnlockReportsItAndAnotherProcessMayTakeIt() throws Exception {
        // Long enough for the other process's first try to find it held on a busy machine.
        registry.setLeaseTime(Duration.ofMillis(800));
        otherProcess.setLeaseTime(Duration.ofMillis(800));
        Lock lock = registry.obtain(key);
        Lock other = otherProcess.obtain(key);
        assertThat(lock.tryLock()).isTrue();
        assertThat(pool.submit(() -> other.tryLock()).get()).isFalse();
        await().atMost(Duration.ofSeconds(5)).until(() -> !keyExists(key));
        assertThat(pool.submit(() -> other.tryLock()).get()).isTrue();
        assertThat(lock.tryLock()).isFalse();
        // The lease ran out under the holder: its last unlock says so, as Spring Integration's does.
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("Lock was released in the store due to expiration");
        // ... and leaves the other process's lock alone.
        assertThat(keyExists(key)).isTrue();
        assertThat(lock.tryLock()).isFalse();
    }

    @Test
    void whenTheHolderTakesTheLockAgainThenItIsReentrantAcrossHandlesAndKeys() throws Exception {
        Lock outer = registry.obtain(key);
        outer.lockInterruptibly();
        Lock inner = registry.obtain(key);
        assertThat(inner).isSameAs(outer);
        inner.lock();
        Lock second = registry.obtain(key + ":bar");
        assertThat(second).isNotSameAs(outer);
        second.lockInterruptibly();
        second.unlock();
        inner.unlock();
        assertThat(otherProcessCanTake(key)).isFalse();
        outer.unlock();
        assertThat(keyExists(key)).isFalse();
        assertThat(otherProcessCanTake(key)).isTrue();
    }

    @Test
    void whenAnotherThreadTriesThenItIsExcludedAndItsUnlockFailsAsSpringIntegrations() throws Exception {
        Lock lock = registry.obtain(key);
        lock.lockInterruptibly();
        Future<Object> result = pool.submit(() -> {
            Lock same = registry.obtain(key);
            boolean taken = same.tryLock(200, TimeUnit.MILLISECONDS);
            try {
                same.unlock();
                return taken;
            } catch (IllegalStateException ex) {
                return ex;
            }
        });
        Object outcome = result.get(10, TimeUnit.SECONDS);
        assertThat(outcome).isInstanceOf(IllegalStateException.class);
        assertThat(((Exception) outcome).getMessage())
                .contains("You do not own lock at")
                .contains(key);
        // The failed unlock released nothing.
        assertThat(otherProcessCanTake(key)).isFalse();
        lock.unlock();
        assertThat(keyExists(key)).isFalse();
    }

    @Test
    void whenTheHolderReleasesThenAWaitingThreadOfThisOrAnotherProcessGetsIt() throws Exception {
        for (DistlockLockRegistry waiterRegistry : List.of(registry, otherProcess)) {
            Lock lock = registry.obtain(key);
            lock.lockInterruptibly();
            CountDownLatch waiting = new CountDownLatch(1);
            AtomicInteger got = new AtomicInteger();
            Future<?> waiter = pool.submit(() -> {
                Lock theirs = waiterRegistry.obtain(key);
                waiting.countDown();
                theirs.lockInterruptibly();
                got.incrementAndGet();
                theirs.unlock();
                return null;
            });
            assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(200);
            assertThat(got).hasValue(0);
            lock.unlock();
            waiter.get(5, TimeUnit.SECONDS);
            assertThat(got).hasValue(1);
        }
    }

    @Test
    void whenAWaiterFailsToGetTheLockThenTheHoldersLeaseIsUnchanged() throws Exception {
        registry.setLeaseTime(Duration.ofSeconds(10));
        Lock lock = registry.obtain(key);
        lock.lock();
        long before = Long.parseLong(redis.command("PTTL", key).trim());
        assertThat(otherProcessCanTake(key)).isFalse();
        assertThat(pool.submit(() -> registry.obtain(key).tryLock()).get()).isFalse();
        assertThat(Long.parseLong(redis.command("PTTL", key).trim())).isLessThanOrEqualTo(before);
        lock.unlock();
    }

    @Test
    void whenTheWatchdogLeaseIsUsedThenTheLockOutlivesSeveralLeases() throws Exception {
        // The client's watchdog timeout is 900 ms: the registry's default lock is renewed while held.
        Lock lock = registry.obtain(key);
        assertThat(lock.tryLock()).isTrue();
        Thread.sleep(2000);
        assertThat(otherProcessCanTake(key)).isFalse();
        lock.unlock();
        assertThat(otherProcessCanTake(key)).isTrue();
    }

    @Test
    void whenLocksComeFromOneOrTwoRegistriesThenEqualityFollowsTheHandle() throws Exception {
        Lock a1 = registry.obtain(key);
        Lock a2 = registry.obtain(key);
        assertThat(a2).isEqualTo(a1);
        a1.lock();
        a2.lock();
        a1.unlock();
        a2.unlock();
        Lock b = otherProcess.obtain(key);
        assertThat(b).isNotEqualTo(a1);
        a1.lock();
        assertThat(pool.submit(() -> b.tryLock()).get()).isFalse();
        a1.unlock();
    }

    @Test
    void whenTwoThreadsExpireAndObtainAtOnceThenBothGetTheSameHandle() throws Exception {
        for (int i = 0; i < 50; i++) {
            String name = key + ":" + i;
            CyclicBarrier start = new CyclicBarrier(2);
            List<Future<Lock>> handles = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                handles.add(pool.submit(() -> {
                    start.await(5, TimeUnit.SECONDS);
                    registry.expireUnusedOlderThan(10_000);
                    Lock lock = registry.obtain(name);
                    if (lock.tryLock(500, TimeUnit.MILLISECONDS)) {
                        lock.unlock();
                    }
                    return lock;
                }));
            }
            assertThat(handles.get(0).get(5, TimeUnit.SECONDS))
                    .isSameAs(handles.get(1).get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void whenHandlesAreIdleThenExpiryDropsThemButNeverAHeldOne() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Lock heldElsewhere = registry.obtain(key);
        Future<?> holder = pool.submit(() -> {
            heldElsewhere.lock();
            held.countDown();
            done.await(10, TimeUnit.SECONDS);
            heldElsewhere.unlock();
            return null;
        });
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        Lock idle = registry.obtain(key + ":idle");
        idle.lock();
        idle.unlock();
        Lock neverUsed = registry.obtain(key + ":never");

        registry.expireUnusedOlderThan(-1);
        assertThat(registry.obtain(key)).isSameAs(heldElsewhere);
        assertThat(registry.obtain(key + ":idle")).isNotSameAs(idle);
        assertThat(registry.obtain(key + ":never")).isSameAs(neverUsed);
        // The held lock still excludes this thread, through whichever handle.
        assertThat(registry.obtain(key).tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
        done.countDown();
        holder.get(10, TimeUnit.SECONDS);
        Lock again = registry.obtain(key);
        again.lock();
        again.unlock();
    }

    @Test
    void whenManyProcessesAndThreadsCountUnderTheLockThenNoIncrementIsLost() throws Exception {
        List<LockClient> clients = new ArrayList<>(List.of(processA, processB));
        clients.add(LockClient.create(redis.uri()));
        try {
            int[] counter = new int[1];
            List<Future<?>> workers = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                DistlockLockRegistry workerRegistry = i < 3 ? registry : new DistlockLockRegistry(clients.get(i % 3));
                workers.add(pool.submit(() -> {
                    for (int n = 0; n < 25; n++) {
                        workerRegistry.executeLocked(key, () -> counter[0] = counter[0] + 1);
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
            assertThat(counter[0]).isEqualTo(150);
        } finally {
            clients.get(2).close();
        }
    }

    @Test
    void whenTwoProcessesWaitAndTheHolderReleasesThenExactlyOneWakesUpWithTheLock() throws Exception {
        LockClient processC = LockClient.create(redis.uri());
        try {
            DistlockLockRegistry third = new DistlockLockRegistry(processC);
            Lock lock = registry.obtain(key);
            lock.lock();
            CountDownLatch ready = new CountDownLatch(2);
            CountDownLatch ended = new CountDownLatch(2);
            AtomicInteger winners = new AtomicInteger();
            for (DistlockLockRegistry waiter : List.of(otherProcess, third)) {
                pool.submit(() -> {
                    ready.countDown();
                    if (waiter.obtain(key).tryLock(10, TimeUnit.SECONDS)) {
                        winners.incrementAndGet();
                    }
                    ended.countDown();
                    return null;
                });
            }
            assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(200);
            lock.unlock();
            // One wakes up with the lock at once; the other keeps waiting behind it.
            assertThat(ended.await(1, TimeUnit.SECONDS)).isFalse();
            assertThat(winners).hasValue(1);
        } finally {
            pool.shutdownNow();
            processC.close();
        }
    }

    @Test
    void whenTheHolderRenewsThenTheLockOutlivesItsTimeToLiveAndOnlyTheHolderMayRenew() throws Exception {
        DistributedLock lock = registry.obtain(key);
        assertThatThrownBy(() -> registry.renewLock(key))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(key);
        assertThat(lock.tryLock()).isTrue();
        registry.renewLock(key);
        lock.unlock();

        assertThat(lock.tryLock(Duration.ofMillis(100), Duration.ofMillis(1000)))
                .isTrue();
        registry.renewLock(key, Duration.ofSeconds(4));
        Thread.sleep(1500);
        assertThat(otherProcessCanTake(key)).isFalse();
        assertThat(pool.submit(() -> {
                            try {
                                registry.renewLock(key, Duration.ofSeconds(3));
                                return null;
                            } catch (IllegalStateException ex) {
                                return ex;
                            }
                        })
                        .get())
                .isInstanceOf(IllegalStateException.class);
        lock.unlock();
        assertThat(keyExists(key)).isFalse();

        // Times with margins for a busy machine: the check comes after the first lease ended.
        registry.setLeaseTime(Duration.ofMillis(1500));
        lock.lock();
        Thread.sleep(1000);
        registry.renewLock(key);
        Thread.sleep(1000);
        assertThat(otherProcessCanTake(key)).isFalse();
        lock.unlock();
    }

    @Test
    void whenANestedAcquisitionRestartsAFixedLeaseThenTheNestedUnlockKeepsItRunning() throws Exception {
        // Leader election takes its lock again every heartbeat and unlocks the nested hold.
        registry.setLeaseTime(Duration.ofMillis(600));
        Lock lock = registry.obtain(key);
        lock.lock();
        for (int i = 0; i < 5; i++) {
            Thread.sleep(250);
            assertThat(lock.tryLock(100, TimeUnit.MILLISECONDS)).isTrue();
            lock.unlock();
        }
        assertThat(otherProcessCanTake(key)).isFalse();
        lock.unlock();
    }

    @Test
    void whenHolderIsInterruptedThenUnlockStillReleasesAndKeepsTheFlag() throws Exception {
        AtomicReference<Boolean> flag = new AtomicReference<>();
        Thread holder = new Thread(() -> {
            Lock lock = registry.obtain(key);
            lock.lock();
            Thread.currentThread().interrupt();
            lock.unlock();
            flag.set(Thread.currentThread().isInterrupted());
        });
        holder.start();
        holder.join(10_000);
        assertThat(flag.get()).isTrue();
        assertThat(keyExists(key)).isFalse();
    }

    @Test
    void whenCallersRunLockedTasksConcurrentlyThenOnlyOneRunsAtATimeAndAWaitCanTimeOut() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        Future<?> first = pool.submit(() -> {
            registry.executeLocked(key, () -> {
                inside.countDown();
                leave.await(10, TimeUnit.SECONDS);
            });
            return null;
        });
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> otherProcess.executeLocked(key, Duration.ofMillis(200), () -> {}))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining(key);
        leave.countDown();
        first.get(10, TimeUnit.SECONDS);
        assertThat(otherProcess.executeLocked(key, Duration.ofSeconds(5), () -> "ran"))
                .isEqualTo("ran");
    }

    @Test
    void whenFencedThenTheHolderReadsAnIncreasingTokenFromAnyThread() throws Exception {
        registry.setFenced(true);
        otherProcess.setFenced(true);
        assertThat(registry.getFencingToken(key)).isEmpty();
        Lock lock = registry.obtain(key);
        lock.lock();
        long first = registry.getFencingToken(key).orElseThrow();
        lock.lock();
        assertThat(registry.getFencingToken(key)).hasValue(first);
        assertThat(pool.submit(() -> registry.getFencingToken(key)).get()).hasValue(first);
        lock.unlock();
        lock.unlock();
        assertThat(registry.getFencingToken(key)).isEmpty();
        long second = pool.submit(() -> {
                    Lock theirs = otherProcess.obtain(key);
                    theirs.lock();
                    try {
                        return otherProcess.getFencingToken(key).orElseThrow();
                    } finally {
                        theirs.unlock();
                    }
                })
                .get();
        assertThat(second).isGreaterThan(first);
    }

    @Test
    void whenTheHandleWasDroppedThenTheTokenOfAHoldThroughItIsStillReadable() {
        registry.setFenced(true);
        DistributedLock lock = registry.obtain(key);
        lock.lock();
        lock.unlock();
        // A leader initiator keeps the handle it obtained; expiry drops the registry's entry meanwhile.
        registry.expireUnusedOlderThan(-1);
        lock.lock();
        try {
            assertThat(registry.getFencingToken(key)).isPresent();
        } finally {
            lock.unlock();
        }
        assertThat(registry.getFencingToken(key)).isEmpty();
    }

    @Test
    void whenTheLeaseRanOutAndTheThreadTakesTheLockAgainThenItIsANewHoldWithANewerToken() throws Exception {
        registry.setFenced(true);
        otherProcess.setFenced(true);
        registry.setLeaseTime(Duration.ofMillis(200));
        Lock lock = registry.obtain(key);
        lock.lock();
        long lost = registry.getFencingToken(key).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> !keyExists(key));
        long between = pool.submit(() -> {
                    Lock theirs = otherProcess.obtain(key);
                    theirs.lock();
                    try {
                        return otherProcess.getFencingToken(key).orElseThrow();
                    } finally {
                        theirs.unlock();
                    }
                })
                .get(10, TimeUnit.SECONDS);
        assertThat(between).isGreaterThan(lost);

        // As a leader elected again: it never unlocked the lost hold.
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        assertThat(registry.getFencingToken(key).orElseThrow()).isGreaterThan(between);
        lock.unlock();
        assertThat(keyExists(key)).isFalse();
        assertThat(registry.getFencingToken(key)).isEmpty();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void whenArgumentsAreBadThenTheErrorNamesThemAndNothingIsLocked() {
        assertThatThrownBy(() -> registry.obtain(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'lockKey'");
        assertThatThrownBy(() -> registry.obtain(42))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'lockKey' must be a String");
        assertThatThrownBy(() -> registry.obtain(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'lockKey' must not be blank");
        DistributedLock lock = registry.obtain(key);
        assertThatThrownBy(() -> lock.lock(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ttl'");
        assertThatThrownBy(() -> lock.tryLock(Duration.ofMillis(-1), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'waitTime'");
        assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ttl'");
        assertThatThrownBy(() -> registry.renewLock(key, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ttl'");
        assertThatThrownBy(() -> registry.setLeaseTime(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'leaseTime'");
        assertThat(keyExists(key)).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
    }
}
