package dev.distlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.test.util.ReflectionTestUtils;

/**
 * Spring Integration 7.1's {@code RedisLockRegistryTests} and {@code LockRegistryLeaderInitiatorTests}
 * (as on its {@code 7.1.x} branch, release 7.1.1), ported to {@link DistlockLockRegistry} and run on a
 * real Redis in each layout by a subclass: {@link SpringIntegrationPortDistlockLayoutTests} and
 * {@link SpringIntegrationPortCompatibleLayoutTests}. Each test is named after the Spring Integration
 * case it ports and keeps its steps, timings and assertions; a comment marks where the port differs.
 * Spring Integration publishes no test artifact, so the port is written from its cases rather than
 * copied from its sources.
 *
 * <p>How Spring Integration's fixtures map here:
 * <ul>
 *   <li>{@code new RedisLockRegistry(connectionFactory, registryKey)} is {@link #registry(String)}: a
 *       registry on a {@link LockClient} of its own, because two {@code RedisLockRegistry} instances are
 *       two holders even on one connection factory, while two Distlock registries on one client are
 *       one process. In the Distlock layout the client's key prefix is {@code <registryKey>:}, so that
 *       the lock of {@code "foo"} is the Redis key {@code <registryKey>:foo} in both layouts, as
 *       {@code RedisLockRegistry} keeps it, and a second registry key is a second set of locks.</li>
 *   <li>Without an {@code expireAfter} (60 s there) the lock is renewed by the client's watchdog
 *       while held; with one, {@link #registry(String, long)} sets it as the registry's lease.</li>
 *   <li>{@code registry.destroy()} is closing the registry's client, done after each test, as is
 *       shutting the case's executors down. The client is connected when the registry is made, as
 *       the connection factory there is.</li>
 *   <li>{@code TestUtils.getPropertyValue(registry, "locks")} reads the registry's map of handles,
 *       which {@code DistlockLockRegistry} also calls {@code locks}.</li>
 *   <li>The {@code RedisLockType} parameter of the class ({@code SPIN_LOCK}, {@code PUB_SUB_LOCK}) is
 *       dropped: a Distlock registry has one way to wait. Each case runs once per layout instead.</li>
 *   <li>{@code LockRegistryLeaderInitiatorTests} elects over an in-memory {@code DefaultLockRegistry};
 *       here over a registry of the layout under test.</li>
 * </ul>
 *
 * <p>Ported, and applying in both layouts: of {@code RedisLockRegistryTests}' 37 cases, 26:
 * {@code testLock}, {@code testLockWithCustomTtl}, {@code testTryLockWithCustomTtl},
 * {@code testUnlockAfterLockStatusHasBeenExpired}, {@code testLockInterruptibly},
 * {@code testReentrantLock}, {@code testReentrantLockInterruptibly}, {@code testTwoLocks},
 * {@code testTwoThreadsSecondFailsToGetLock}, {@code testTwoThreads},
 * {@code testTwoThreadsDifferentRegistries}, {@code testTwoThreadsWrongOneUnlocks},
 * {@code testExpireTwoRegistries}, {@code testExceptionOnExpire}, {@code testRenewalOnExpire},
 * {@code testEquals}, {@code testThreadLocalListLeaks}, {@code testExpireNotChanged},
 * {@code twoRedisLockRegistryTest}, {@code multiRedisLockRegistryTest}, {@code earlyWakeUpTest},
 * {@code testTwoThreadsRemoveAndObtainSameLockSimultaneously}, {@code testLockRenew},
 * {@code testLockRenewLockNotOwned}, {@code testLockRenewWithCustomTtl},
 * {@code testUnlockDoesNotDeleteOtherClientsLock}; of {@code LockRegistryLeaderInitiatorTests}' 8
 * cases, 5: {@code startAndStop}, {@code yield}, {@code competing}, {@code competingWithErrorPublish},
 * {@code testExceptionFromEvent}.
 *
 * <p>Cases that cannot apply, and why:
 * <ul>
 *   <li>{@code concurrentObtainCapacityTest}, {@code concurrentObtainRemoveOrderTest},
 *       {@code concurrentObtainAccessRemoveOrderTest}, {@code setCapacityTest},
 *       {@code notUsedLockIsEvictedOnCacheLimit}, {@code cannotAcquireLockExceptionOnCacheLimit},
 *       {@code unusedLockIsStale}: they test the cache of handles bounded by
 *       {@code setCacheCapacity} (its LRU order, the eviction of handles not held, the
 *       {@code CannotAcquireLockException} of a full cache and of an evicted handle). A Distlock
 *       registry has no bound: {@code obtain} never fails for room, handles are dropped by
 *       {@code expireUnusedOlderThan} only, never while held, and a dropped handle keeps working
 *       ({@code DistlockLockRegistryTests} tests both).</li>
 *   <li>{@code testInitialiseWithCustomExecutor}, {@code testUnlockWhenInterruptedBlocksUntilKeyRemoved}:
 *       they replace (and freeze) the executor that {@code RedisLockRegistry} releases keys on; a
 *       Distlock registry releases on the caller's thread and has no executor to set.
 *       {@code DistlockLockRegistryTests} and {@code SpringIntegrationRedisLayoutTests} check that an
 *       interrupted holder's unlock still releases.</li>
 *   <li>{@code testRenewFallbackWhenCasCadNotSupported}, {@code testUnlockFallbackWhenCasCadNotSupported}:
 *       they mock Redis templates to refuse Redis 8.4's compare-and-set commands and read the
 *       registry's {@code supportsCasCadOperations} flag; Distlock runs Lua scripts only, so there is
 *       no fallback to test.</li>
 *   <li>{@code LockRegistryLeaderInitiatorTests.competingWithLock}, {@code testExceptionFromLock},
 *       {@code testGracefulLeaderSelectorExit}: they mock the lock registry (a lock that is lost,
 *       throws, or stops the initiator inside {@code tryLock}) to test the initiator itself; no
 *       registry runs. {@code LeaderElectionTests} loses a real lease between two heartbeats instead.</li>
 * </ul>
 */
abstract class SpringIntegrationRegistryPortTests {

    private static final Log logger = LogFactory.getLog(SpringIntegrationRegistryPortTests.class);

    static final RedisServer redis = RedisServers.shared();

    private final String registryKey = UUID.randomUUID().toString();

    private final String registryKey2 = UUID.randomUUID().toString();

    private final List<LockClient> clients = new ArrayList<>();

    private final List<ExecutorService> executors = new ArrayList<>();

    private final Map<DistlockLockRegistry, String> registryKeys = new IdentityHashMap<>();

    /**
     * @param client the registry's client, whose key prefix is {@code <registryKey>:}
     * @param registryKey the registry key
     * @return a registry of the layout under test
     */
    abstract DistlockLockRegistry newRegistry(LockClient client, String registryKey);

    @AfterEach
    void destroy() {
        executors.forEach(ExecutorService::shutdownNow);
        clients.forEach(LockClient::close);
    }

    /** As {@code new RedisLockRegistry(connectionFactory, registryKey)}: another registry, another holder. */
    DistlockLockRegistry registry(String registryKey) {
        return registry(registryKey, null, null);
    }

    /** As {@code new RedisLockRegistry(connectionFactory, registryKey, expireAfter)}. */
    DistlockLockRegistry registry(String registryKey, long expireAfter) {
        return registry(registryKey, Duration.ofMillis(expireAfter), null);
    }

    private DistlockLockRegistry registry(
            String registryKey, @Nullable Duration leaseTime, @Nullable Duration watchdogTimeout) {
        LockClientOptions.Builder options =
                LockClientOptions.builder().uri(redis.uri()).keyPrefix(registryKey + ":");
        if (watchdogTimeout != null) {
            options.watchdogTimeout(watchdogTimeout);
        }
        LockClient client = LockClient.create(options.build());
        clients.add(client);
        // Connected before the case uses it, as Spring Integration's shared connection factory is: a
        // client connects on its first command, which would otherwise count in the case's timing
        // (a first tryLock() can take longer than testExpireTwoRegistries' 100 ms lease on a busy machine).
        client.ping();
        DistlockLockRegistry registry = newRegistry(client, registryKey);
        registry.setLeaseTime(leaseTime);
        registryKeys.put(registry, registryKey);
        return registry;
    }

    private ExecutorService newSingleThreadExecutor() {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        executors.add(executor);
        return executor;
    }

    private ExecutorService newFixedThreadPool(int threads) {
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        executors.add(executor);
        return executor;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, ?> getRedisLockRegistryLocks(DistlockLockRegistry registry) {
        return (Map<String, ?>) ReflectionTestUtils.getField(registry, "locks");
    }

    private static boolean exists(String redisKey) {
        return redis.command("EXISTS", redisKey).trim().equals("1");
    }

    private void waitForExpire(String key) throws Exception {
        String lockKey = this.registryKey + ":" + key;
        int n = 0;
        while (n++ < 100 && exists(lockKey)) {
            Thread.sleep(100);
        }
        assertThat(n < 100).as(key + " key did not expire").isTrue();
    }

    /** The key's time to live in seconds, as {@code StringRedisTemplate.getExpire} reads it. */
    private Long getExpire(DistlockLockRegistry registry, String lockKey) {
        return Long.parseLong(
                redis.command("TTL", registryKeys.get(registry) + ":" + lockKey).trim());
    }

    // RedisLockRegistryTests

    @Test
    void testLock() {
        DistlockLockRegistry registry = registry(this.registryKey);
        for (int i = 0; i < 10; i++) {
            Lock lock = registry.obtain("foo");
            lock.lock();
            try {
                assertThat(getRedisLockRegistryLocks(registry)).hasSize(1);
            } finally {
                lock.unlock();
            }
        }
        registry.expireUnusedOlderThan(-1000);
        assertThat(getRedisLockRegistryLocks(registry)).isEmpty();
    }

    @Test
    void testLockWithCustomTtl() throws InterruptedException {
        DistlockLockRegistry registry = registry(this.registryKey, 100);
        long sleepTimeLongerThanDefaultTTL = 200;
        for (int i = 0; i < 3; i++) {
            DistributedLock lock = registry.obtain("foo");
            // Spring Integration's custom 500 ms made 2 s: what matters is that it outlives the
            // registry's 100 ms default, and a busy machine can stall 300 ms past the sleep.
            lock.lock(Duration.ofMillis(2000));
            try {
                assertThat(getRedisLockRegistryLocks(registry)).hasSize(1);
                Thread.sleep(sleepTimeLongerThanDefaultTTL);
            } finally {
                assertThatNoException().isThrownBy(lock::unlock);
            }
        }
        registry.expireUnusedOlderThan(-1000);
        assertThat(getRedisLockRegistryLocks(registry)).isEmpty();
    }

    @Test
    void testTryLockWithCustomTtl() throws InterruptedException {
        DistlockLockRegistry registry = registry(this.registryKey, 100);
        long sleepTimeLongerThanDefaultTTL = 200;
        for (int i = 0; i < 3; i++) {
            DistributedLock lock = registry.obtain("foo");
            // As in testLockWithCustomTtl: 500 ms made 2 s.
            lock.tryLock(Duration.ofMillis(100), Duration.ofMillis(2000));
            try {
                assertThat(getRedisLockRegistryLocks(registry)).hasSize(1);
                Thread.sleep(sleepTimeLongerThanDefaultTTL);
            } finally {
                assertThatNoException().isThrownBy(lock::unlock);
            }
        }
        registry.expireUnusedOlderThan(-1000);
        assertThat(getRedisLockRegistryLocks(registry)).isEmpty();
    }

    @Test
    void testUnlockAfterLockStatusHasBeenExpired() throws InterruptedException {
        DistlockLockRegistry registry = registry(this.registryKey, 100);
        Lock lock = registry.obtain("foo");
        lock.lock();
        Thread.sleep(200);

        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
    }

    @Test
    void testLockInterruptibly() throws Exception {
        DistlockLockRegistry registry = registry(this.registryKey);
        for (int i = 0; i < 10; i++) {
            Lock lock = registry.obtain("foo");
            lock.lockInterruptibly();
            try {
                assertThat(getRedisLockRegistryLocks(registry)).hasSize(1);
            } finally {
                lock.unlock();
            }
        }
        registry.expireUnusedOlderThan(-1000);
        assertThat(getRedisLockRegistryLocks(registry)).isEmpty();
    }

    @Test
    void testReentrantLock() {
        DistlockLockRegistry registry = registry(this.registryKey);
        for (int i = 0; i < 10; i++) {
            Lock lock1 = registry.obtain("foo");
            lock1.lock();
            try {
                Lock lock2 = registry.obtain("foo");
                assertThat(lock2).isSameAs(lock1);
                lock2.lock();
                try {
                    // just get the lock
                } finally {
                    lock2.unlock();
                }
            } finally {
                lock1.unlock();
            }
        }
        registry.expireUnusedOlderThan(-1000);
        assertThat(getRedisLockRegistryLocks(registry)).isEmpty();
    }

    @Test
    void testReentrantLockInterruptibly() throws Exception {
        DistlockLockRegistry registry = registry(this.registryKey);
        for (int i = 0; i < 10; i++) {
            Lock lock1 = registry.obtain("foo");
            lock1.lockInterruptibly();
            try {
                Lock lock2 = registry.obtain("foo");
                assertThat(lock2).isSameAs(lock1);
                lock2.lockInterruptibly();
                try {
                    // just get the lock
                } finally {
                    lock2.unlock();
                }
            } finally {
                lock1.unlock();
            }
        }
        registry.expireUnusedOlderThan(-1000);
        assertThat(getRedisLockRegistryLocks(registry)).isEmpty();
    }

    @Test
    void testTwoLocks() throws Exception {
        DistlockLockRegistry registry = registry(this.registryKey);
        for (int i = 0; i < 10; i++) {
            Lock lock1 = registry.obtain("foo");
            lock1.lockInterruptibly();
            try {
                Lock lock2 = registry.obtain("bar");
                assertThat(lock2).isNotSameAs(lock1);
                lock2.lockInterruptibly();
                try {
                    // just get the lock
                } finally {
                    lock2.unlock();
                }
            } finally {
                lock1.unlock();
            }
        }
        registry.expireUnusedOlderThan(-1000);
        assertThat(getRedisLockRegistryLocks(registry)).isEmpty();
    }

    @Test
    void testTwoThreadsSecondFailsToGetLock() throws Exception {
        DistlockLockRegistry registry = registry(this.registryKey);
        Lock lock1 = registry.obtain("foo");
        lock1.lockInterruptibly();
        AtomicBoolean locked = new AtomicBoolean();
        CountDownLatch latch = new CountDownLatch(1);
        Future<Object> result = newSingleThreadExecutor().submit(() -> {
            Lock lock2 = registry.obtain("foo");
            locked.set(lock2.tryLock(200, TimeUnit.MILLISECONDS));
            latch.countDown();
            try {
                lock2.unlock();
            } catch (IllegalStateException ise) {
                return ise;
            }
            return null;
        });
        assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(locked.get()).isFalse();
        lock1.unlock();
        Object ise = result.get(10, TimeUnit.SECONDS);
        assertThat(ise).isInstanceOf(IllegalStateException.class);
        assertThat(((Exception) ise).getMessage()).contains("You do not own lock at");
        registry.expireUnusedOlderThan(-1000);
        assertThat(getRedisLockRegistryLocks(registry)).isEmpty();
    }

    @Test
    void testTwoThreads() throws Exception {
        DistlockLockRegistry registry = registry(this.registryKey);
        Lock lock1 = registry.obtain("foo");
        AtomicBoolean locked = new AtomicBoolean();
        CountDownLatch latch1 = new CountDownLatch(1);
        CountDownLatch latch2 = new CountDownLatch(1);
        CountDownLatch latch3 = new CountDownLatch(1);
        lock1.lockInterruptibly();
        assertThat(getRedisLockRegistryLocks(registry)).hasSize(1);
        newSingleThreadExecutor().execute(() -> {
            Lock lock2 = registry.obtain("foo");
            try {
                latch1.countDown();
                lock2.lockInterruptibly();
                assertThat(getRedisLockRegistryLocks(registry)).hasSize(1);
                latch2.await(10, TimeUnit.SECONDS);
                locked.set(true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock2.unlock();
                latch3.countDown();
            }
        });
        assertThat(latch1.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(locked.get()).isFalse();
        lock1.unlock();
        latch2.countDown();
        assertThat(latch3.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(locked.get()).isTrue();
        registry.expireUnusedOlderThan(-1000);
        assertThat(getRedisLockRegistryLocks(registry)).isEmpty();
    }

    @Test
    void testTwoThreadsDifferentRegistries() throws Exception {
        DistlockLockRegistry registry1 = registry(this.registryKey);
        DistlockLockRegistry registry2 = registry(this.registryKey);
        Lock lock1 = registry1.obtain("foo");
        AtomicBoolean locked = new AtomicBoolean();
        CountDownLatch latch1 = new CountDownLatch(1);
        CountDownLatch latch2 = new CountDownLatch(1);
        CountDownLatch latch3 = new CountDownLatch(1);
        lock1.lockInterruptibly();
        assertThat(getRedisLockRegistryLocks(registry1)).hasSize(1);
        newSingleThreadExecutor().execute(() -> {
            Lock lock2 = registry2.obtain("foo");
            try {
                latch1.countDown();
                lock2.lockInterruptibly();
                assertThat(getRedisLockRegistryLocks(registry2)).hasSize(1);
                latch2.await(10, TimeUnit.SECONDS);
                locked.set(true);
            } catch (InterruptedException e1) {
                Thread.currentThread().interrupt();
                logger.error("Interrupted while locking: " + lock2, e1);
            } finally {
                try {
                    lock2.unlock();
                    latch3.countDown();
                } catch (IllegalStateException e2) {
                    logger.error("Failed to unlock: " + lock2, e2);
                }
            }
        });
        assertThat(latch1.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(locked.get()).isFalse();
        lock1.unlock();
        latch2.countDown();
        assertThat(latch3.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(locked.get()).isTrue();
        registry1.expireUnusedOlderThan(-1000);
        registry2.expireUnusedOlderThan(-1000);
        assertThat(getRedisLockRegistryLocks(registry1)).isEmpty();
        assertThat(getRedisLockRegistryLocks(registry2)).isEmpty();
    }

    @Test
    void testTwoThreadsWrongOneUnlocks() throws Exception {
        DistlockLockRegistry registry = registry(this.registryKey);
        Lock lock = registry.obtain("foo");
        lock.lockInterruptibly();
        AtomicBoolean locked = new AtomicBoolean();
        CountDownLatch latch = new CountDownLatch(1);
        Future<Object> result = newSingleThreadExecutor().submit(() -> {
            try {
                lock.unlock();
            } catch (IllegalStateException ise) {
                latch.countDown();
                return ise;
            }
            return null;
        });
        assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(locked.get()).isFalse();
        lock.unlock();
        Object ise = result.get(10, TimeUnit.SECONDS);
        assertThat(ise).isInstanceOf(IllegalStateException.class);
        assertThat(((Exception) ise).getMessage()).contains("You do not own lock at");
        registry.expireUnusedOlderThan(-1000);
        assertThat(getRedisLockRegistryLocks(registry)).isEmpty();
    }

    @Test
    void testExpireTwoRegistries() throws Exception {
        // Spring Integration's 100 ms lease, made 1 s: the last two steps must run within the lease
        // registry 2 just took, and a busy 2-core machine stalls longer than 100 ms between two calls
        // (one failure in 90 runs under load, the lease gone before registry 1 asked). The steps and
        // assertions are the original's.
        DistlockLockRegistry registry1 = registry(this.registryKey, 1000);
        DistlockLockRegistry registry2 = registry(this.registryKey, 1000);
        Lock lock1 = registry1.obtain("foo");
        Lock lock2 = registry2.obtain("foo");
        assertThat(lock1.tryLock()).isTrue();
        assertThat(lock2.tryLock()).isFalse();
        waitForExpire("foo");
        assertThat(lock2.tryLock()).isTrue();
        assertThat(lock1.tryLock()).isFalse();
    }

    @Test
    void testExceptionOnExpire() throws Exception {
        DistlockLockRegistry registry = registry(this.registryKey, 1);
        Lock lock1 = registry.obtain("foo");
        assertThat(lock1.tryLock()).isTrue();
        waitForExpire("foo");
        assertThatThrownBy(lock1::unlock)
                .isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("Lock was released in the store due to expiration.");
    }

    @Test
    void testRenewalOnExpire() throws Exception {
        // Spring Integration's 300 ms made 1 s: a renewal every third of it must not be outrun by a busy
        // machine's stall; the lock is still held across twice the expiry.
        long expireAfter = 1000L;
        // There: an expireAfter of 300 ms renewed by setRenewalTaskScheduler(...). A Distlock registry
        // has no scheduler to set (setRenewalTaskScheduler does nothing): its watchdog renews a held
        // lock, here with a watchdog timeout of the case's expireAfter.
        DistlockLockRegistry registry = registry(this.registryKey, null, Duration.ofMillis(expireAfter));
        Lock lock1 = registry.obtain("foo");
        assertThat(lock1.tryLock()).isTrue();
        Thread.sleep(expireAfter * 2);
        lock1.unlock();
    }

    @Test
    void testEquals() {
        DistlockLockRegistry registry1 = registry(this.registryKey);
        DistlockLockRegistry registry2 = registry(this.registryKey);
        DistlockLockRegistry registry3 = registry(this.registryKey2);

        Lock lock1 = registry1.obtain("foo");
        Lock lock2 = registry1.obtain("foo");
        assertThat(lock2).isEqualTo(lock1);
        lock1.lock();
        lock2.lock();
        assertThat(lock2).isEqualTo(lock1);
        lock1.unlock();
        lock2.unlock();
        assertThat(lock2).isEqualTo(lock1);

        lock1 = registry1.obtain("foo");
        lock2 = registry2.obtain("foo");
        assertThat(lock2).isNotEqualTo(lock1);
        lock1.lock();
        assertThat(lock2.tryLock()).isFalse();
        lock1.unlock();

        lock1 = registry1.obtain("foo");
        lock2 = registry3.obtain("foo");
        assertThat(lock2).isNotEqualTo(lock1);
        lock1.lock();
        lock2.lock();
        lock1.unlock();
        lock2.unlock();
    }

    @Test
    void testThreadLocalListLeaks() {
        DistlockLockRegistry registry = registry(this.registryKey, 10000);

        for (int i = 0; i < 10; i++) {
            registry.obtain("foo" + i);
        }
        assertThat(getRedisLockRegistryLocks(registry)).hasSize(10);

        for (int i = 0; i < 10; i++) {
            Lock lock = registry.obtain("foo" + i);
            lock.lock();
        }
        assertThat(getRedisLockRegistryLocks(registry)).hasSize(10);

        for (int i = 0; i < 10; i++) {
            Lock lock = registry.obtain("foo" + i);
            lock.unlock();
        }
        assertThat(getRedisLockRegistryLocks(registry)).hasSize(10);
    }

    @Test
    void testExpireNotChanged() throws Exception {
        DistlockLockRegistry registry = registry(this.registryKey, 10000);

        Lock lock = registry.obtain("foo");
        lock.lock();

        Long expire = getExpire(registry, "foo");

        Future<Object> result = newSingleThreadExecutor().submit(() -> {
            Lock lock2 = registry.obtain("foo");
            assertThat(lock2.tryLock()).isFalse();
            return null;
        });
        result.get();
        assertThat(getExpire(registry, "foo")).isEqualTo(expire);
        lock.unlock();
    }

    @Test
    void twoRedisLockRegistryTest() throws InterruptedException {
        DistlockLockRegistry registry1 = registry(this.registryKey, 1000000L);
        DistlockLockRegistry registry2 = registry(this.registryKey, 1000000L);

        String lockKey = "test-1";

        Lock obtainLock1 = registry1.obtain(lockKey);
        Lock obtainLock2 = registry2.obtain(lockKey);

        CountDownLatch registry1Lock = new CountDownLatch(1);
        CountDownLatch endDownLatch = new CountDownLatch(2);

        CompletableFuture<Void> future1 = CompletableFuture.runAsync(() -> {
            try {
                obtainLock1.lock();
                registry1Lock.countDown();
                obtainLock1.unlock();
                endDownLatch.countDown();
            } catch (Exception ignore) {
                logger.error("Failed to lock and unlock " + obtainLock1, ignore);
            }
        });

        CompletableFuture<Void> future2 = CompletableFuture.runAsync(() -> {
            try {
                registry1Lock.await();
            } catch (InterruptedException ignore) {
            }
            obtainLock2.lock();
            obtainLock2.unlock();
            endDownLatch.countDown();
        });

        // There an await() without a limit: bounded here, so that a failure fails the case instead
        // of hanging the build.
        assertThat(endDownLatch.await(60, TimeUnit.SECONDS)).isTrue();

        assertThat(future1).isNotCompletedExceptionally();
        assertThat(future2).isNotCompletedExceptionally();
    }

    @Test
    void multiRedisLockRegistryTest() throws InterruptedException, ExecutionException {
        String testKey = "testKey";
        long expireAfter = 100000L;
        int lockRegistryNum = 10;
        ExecutorService executorService = newFixedThreadPool(lockRegistryNum * 2);
        AtomicInteger atomicInteger = new AtomicInteger(0);
        List<Callable<Boolean>> collect = new ArrayList<>();
        for (int num = 0; num < lockRegistryNum; num++) {
            DistlockLockRegistry registry = registry(this.registryKey, expireAfter);
            collect.add(() -> {
                Lock obtain = registry.obtain(testKey);
                obtain.lock();
                obtain.unlock();
                atomicInteger.incrementAndGet();
                return true;
            });
        }

        int testCnt = 3;
        for (int i = 0; i < testCnt; i++) {
            List<Future<Boolean>> futures1 = executorService.invokeAll(collect);
            for (Future<Boolean> fu : futures1) {
                fu.get();
            }
        }

        assertThat(atomicInteger.get()).isEqualTo(testCnt * lockRegistryNum);
    }

    @Test
    void earlyWakeUpTest() throws InterruptedException {
        int threadCnt = 2;
        String testKey = "testKey";

        CountDownLatch tryLockReady = new CountDownLatch(threadCnt);
        CountDownLatch awaitTimeout = new CountDownLatch(threadCnt);
        DistlockLockRegistry registry1 = registry(this.registryKey);
        DistlockLockRegistry registry2 = registry(this.registryKey);
        DistlockLockRegistry registry3 = registry(this.registryKey);

        ExecutorService executorService = newFixedThreadPool(threadCnt);

        Lock lock1 = registry1.obtain(testKey);
        Lock lock2 = registry2.obtain(testKey);
        Lock lock3 = registry3.obtain(testKey);
        AtomicInteger expectOne = new AtomicInteger();

        lock1.lock();
        executorService.submit(() -> {
            try {
                tryLockReady.countDown();
                boolean b = lock2.tryLock(10, TimeUnit.SECONDS);
                awaitTimeout.countDown();
                if (b) {
                    expectOne.incrementAndGet();
                }
            } catch (InterruptedException ignore) {
            }
        });

        executorService.submit(() -> {
            try {
                tryLockReady.countDown();
                boolean b = lock3.tryLock(10, TimeUnit.SECONDS);
                awaitTimeout.countDown();
                if (b) {
                    expectOne.incrementAndGet();
                }
            } catch (InterruptedException ignore) {
            }
        });

        assertThat(tryLockReady.await(10, TimeUnit.SECONDS)).isTrue();
        lock1.unlock();
        assertThat(awaitTimeout.await(1, TimeUnit.SECONDS)).isFalse();
        assertThat(expectOne.get()).isEqualTo(1);
    }

    @Test
    void testTwoThreadsRemoveAndObtainSameLockSimultaneously() throws Exception {
        int testCnt = 200;
        long expirationTimeMillis = 10000;
        long lockWaitTimeMillis = 500;
        String testKey = "testKey";

        DistlockLockRegistry registry = registry(this.registryKey);

        for (int i = 0; i < testCnt; i++) {
            String lockKey = testKey + i;
            CountDownLatch latch = new CountDownLatch(1);
            AtomicReference<Lock> lock1 = new AtomicReference<>();
            AtomicReference<Lock> lock2 = new AtomicReference<>();

            Thread thread1 = new Thread(() -> {
                try {
                    latch.await();
                    // remove lock
                    registry.expireUnusedOlderThan(expirationTimeMillis);
                    // obtain new lock and try to acquire
                    lock1.set(obtainAndLock(registry, lockKey, lockWaitTimeMillis));
                } catch (InterruptedException ignore) {
                }
            });

            Thread thread2 = new Thread(() -> {
                try {
                    latch.await();
                    // remove lock
                    registry.expireUnusedOlderThan(expirationTimeMillis);
                    // obtain new lock and try to acquire
                    lock2.set(obtainAndLock(registry, lockKey, lockWaitTimeMillis));
                } catch (InterruptedException ignore) {
                }
            });

            thread1.start();
            thread2.start();
            latch.countDown();
            thread1.join();
            thread2.join();

            // locks must be the same!
            assertThat(lock1.get()).isEqualTo(lock2.get());
        }
    }

    /**
     * Obtains the lock of the key, tries to acquire it and releases it. There this retries with a new
     * lock when the one obtained was evicted from the exhausted cache meanwhile
     * ({@code CannotAcquireLockException}); a Distlock registry evicts no handle that way, so one try.
     */
    private static Lock obtainAndLock(DistlockLockRegistry registry, String lockKey, long lockWaitTimeMillis)
            throws InterruptedException {
        Lock lock = registry.obtain(lockKey);
        lock.tryLock(lockWaitTimeMillis, TimeUnit.MILLISECONDS);
        lock.unlock();
        return lock;
    }

    @Test
    void testLockRenew() {
        DistlockLockRegistry registry = registry(this.registryKey);
        Lock lock = registry.obtain("foo");

        assertThat(lock.tryLock()).isTrue();
        try {
            registry.renewLock("foo");
        } finally {
            lock.unlock();
        }
    }

    @Test
    void testLockRenewLockNotOwned() {
        DistlockLockRegistry registry = registry(this.registryKey);
        registry.obtain("foo");

        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> registry.renewLock("foo"));
    }

    @Test
    void testLockRenewWithCustomTtl() throws InterruptedException {
        DistlockLockRegistry registry = registry(this.registryKey);
        DistlockLockRegistry registryOfAnotherProcess = registry(this.registryKey);
        DistributedLock lock = registry.obtain("foo");
        Lock lockOfAnotherProcess = registryOfAnotherProcess.obtain("foo");
        // Spring Integration's 100 ms made 1 s (and 110 ms, 1.1 s): the renewal must reach Redis within
        // the first lease, which a busy 2-core machine can let pass between two calls.
        long ttl = 1000;
        long sleepTimeLongerThanTtl = 1100;
        assertThat(lock.tryLock(Duration.ofMillis(100), Duration.ofMillis(ttl))).isTrue();
        try {
            registry.renewLock("foo", Duration.ofSeconds(2));
            Thread.sleep(sleepTimeLongerThanTtl);
            assertThat(lockOfAnotherProcess.tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void testUnlockDoesNotDeleteOtherClientsLock() throws Exception {
        DistlockLockRegistry registry1 = registry(this.registryKey, 100);
        DistlockLockRegistry registry2 = registry(this.registryKey, 10000);

        Lock lock1 = registry1.obtain("testLock");
        lock1.lock();

        waitForExpire("testLock");

        Lock lock2 = registry2.obtain("testLock");
        assertThat(lock2.tryLock()).isTrue();
        try {
            assertThatThrownBy(lock1::unlock).isInstanceOf(ConcurrentModificationException.class);
        } finally {
            lock2.unlock();
        }
    }

    // LockRegistryLeaderInitiatorTests

    /**
     * There the test class's fields: an initiator on the registry with a {@link DefaultCandidate},
     * publishing to latches. Here one per case, on a registry of the layout under test.
     */
    private final class Election {

        final DistlockLockRegistry registry = registry(SpringIntegrationRegistryPortTests.this.registryKey);

        final CountDownLatch granted = new CountDownLatch(1);

        final CountDownLatch revoked = new CountDownLatch(1);

        final LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, new DefaultCandidate());

        Election() {
            initiator.setLeaderEventPublisher(new CountingPublisher(granted, revoked));
        }
    }

    @Test
    void startAndStop() throws Exception {
        Election election = new Election();
        assertThat(election.initiator.getContext().isLeader()).isFalse();
        election.initiator.start();
        assertThat(election.initiator.isRunning()).isTrue();
        assertThat(election.granted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(election.initiator.getContext().isLeader()).isTrue();
        Thread.sleep(200L);
        assertThat(election.initiator.getContext().isLeader()).isTrue();
        election.initiator.stop();
        assertThat(election.revoked.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(election.initiator.getContext().isLeader()).isFalse();
    }

    @Test
    void yield() throws Exception {
        Election election = new Election();
        assertThat(election.initiator.getContext().isLeader()).isFalse();
        election.initiator.start();
        assertThat(election.initiator.isRunning()).isTrue();
        assertThat(election.granted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(election.initiator.getContext().isLeader()).isTrue();
        election.initiator.getContext().yield();
        assertThat(election.revoked.await(10, TimeUnit.SECONDS)).isTrue();
        election.initiator.stop();
    }

    @Test
    void competing() throws Exception {
        Election election = new Election();
        LockRegistryLeaderInitiator another =
                new LockRegistryLeaderInitiator(election.registry, new DefaultCandidate());

        CountDownLatch other = new CountDownLatch(1);
        another.setLeaderEventPublisher(new CountingPublisher(other));
        election.initiator.start();
        assertThat(election.granted.await(20, TimeUnit.SECONDS)).isTrue();
        another.start();
        election.initiator.stop();
        assertThat(other.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(another.getContext().isLeader()).isTrue();
        another.stop();
    }

    @Test
    void competingWithErrorPublish() throws Exception {
        Election election = new Election();
        LockRegistryLeaderInitiator another =
                new LockRegistryLeaderInitiator(election.registry, new DefaultCandidate());

        CountDownLatch other = new CountDownLatch(1);
        CountDownLatch failedAcquireLatch = new CountDownLatch(1);
        another.setLeaderEventPublisher(new CountingPublisher(other, new CountDownLatch(1), failedAcquireLatch));
        another.setPublishFailedEvents(true);
        election.initiator.start();
        assertThat(election.granted.await(20, TimeUnit.SECONDS)).isTrue();
        another.start();
        assertThat(failedAcquireLatch.await(20, TimeUnit.SECONDS)).isTrue();
        election.initiator.stop();
        assertThat(other.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(another.getContext().isLeader()).isTrue();
        another.stop();
    }

    @Test
    void testExceptionFromEvent() throws Exception {
        Election election = new Election();
        CountDownLatch onGranted = new CountDownLatch(1);

        election.initiator.setLeaderEventPublisher(new DefaultLeaderEventPublisher() {

            @Override
            public void publishOnGranted(Object source, Context context, String role) {
                try {
                    throw new RuntimeException("intentional");
                } finally {
                    onGranted.countDown();
                }
            }
        });

        election.initiator.start();

        assertThat(onGranted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(election.initiator.getContext().isLeader()).isTrue();

        election.initiator.stop();
    }

    private static final class CountingPublisher implements LeaderEventPublisher {

        private final CountDownLatch granted;

        private final CountDownLatch revoked;

        private final CountDownLatch acquireFailed;

        CountingPublisher(CountDownLatch granted) {
            this(granted, new CountDownLatch(1), new CountDownLatch(1));
        }

        CountingPublisher(CountDownLatch granted, CountDownLatch revoked) {
            this(granted, revoked, new CountDownLatch(1));
        }

        CountingPublisher(CountDownLatch granted, CountDownLatch revoked, CountDownLatch acquireFailed) {
            this.granted = granted;
            this.revoked = revoked;
            this.acquireFailed = acquireFailed;
        }

        @Override
        public void publishOnRevoked(Object source, Context context, String role) {
            this.revoked.countDown();
        }

        @Override
        public void publishOnFailedToAcquire(Object source, Context context, String role) {
            this.acquireFailed.countDown();
        }

        @Override
        public void publishOnGranted(Object source, Context context, String role) {
            this.granted.countDown();
        }
    }
}
