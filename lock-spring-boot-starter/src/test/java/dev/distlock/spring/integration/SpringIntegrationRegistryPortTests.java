package dev.distlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
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
 * Spring Integration 7.1's {@code RedisLockRegistryTests} and {@code LockRegistryLeaderInitiatorTests},
 * ported to {@link DistlockLockRegistry} and run on a real Redis in each layout by a subclass:
 * {@link SpringIntegrationPortDistlockLayoutTests} and {@link SpringIntegrationPortCompatibleLayoutTests}.
 * Each test is named after the Spring Integration case it ports and keeps its steps and assertions;
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
 *   <li>{@code registry.destroy()} is closing the registry's client, done after each test. The
 *       client is connected when the registry is made, as the connection factory there is.</li>
 *   <li>{@code TestUtils.getPropertyValue(registry, "locks", Map.class)} reads the registry's map of
 *       handles, which {@code DistlockLockRegistry} also calls {@code locks}.</li>
 *   <li>The {@code RedisLockType} parameter ({@code SPIN_LOCK}, {@code PUB_SUB_LOCK}) is dropped:
 *       a Distlock registry has one way to wait. Each case runs once per layout instead.</li>
 *   <li>{@code LockRegistryLeaderInitiatorTests} elects over an in-memory {@code DefaultLockRegistry};
 *       here over a registry of the layout under test.</li>
 * </ul>
 *
 * <p>Cases ported (every one applies in both layouts): {@code testLock},
 * {@code testLockWithCustomTtl}, {@code testTryLockWithCustomTtl}, {@code testLockInterruptibly},
 * {@code testReentrantLock}, {@code testReentrantLockInterruptibly}, {@code testTwoLocks},
 * {@code testTwoThreadsSecondFailsToGetLock}, {@code testTwoThreads},
 * {@code testTwoThreadsDifferentRegistries}, {@code testTwoThreadsWrongOneUnlocks},
 * {@code testExpireTwoRegistries}, {@code testExceptionOnExpire}, {@code testRenewalOnExpire},
 * {@code testEquals}, {@code testExpireNotChanged}, {@code twoRedisLockRegistryTest},
 * {@code multiRedisLockRegistryTest}, {@code earlyWakeUpTest},
 * {@code testTwoThreadsRemoveAndObtainSameLockSimultaneously}, {@code testLockRenew},
 * {@code testLockRenewLockNotOwned}, {@code testUnlockAfterLockStatusHasBeenExpiredAndDeleted},
 * {@code testUnlockAfterLockStatusHasBeenExpiredAndReacquiredByOther}; and of
 * {@code LockRegistryLeaderInitiatorTests}: {@code startAndStop}, {@code yieldLeadership},
 * {@code competing}, {@code testExceptionFromEvent}.
 *
 * <p>{@code testRenewalOnExpire} sets a renewal scheduler there ({@code setRenewalTaskScheduler});
 * a Distlock registry has none to set, since its watchdog renews every held lock without a fixed
 * lease. The port keeps the case's point with a watchdog timeout of the case's {@code expireAfter}:
 * a lock held for twice that long still unlocks without error.
 *
 * <p>Cases that cannot apply, and why:
 * <ul>
 *   <li>{@code concurrentObtainCapacityTest}, {@code concurrentObtainRemoveOrderTest},
 *       {@code concurrentObtainAccessRemoveOrderTest}, {@code setCapacityTest}: they test the LRU
 *       cache of handles bounded by {@code setCacheCapacity}; a Distlock registry has no bound, and
 *       drops idle handles by {@code expireUnusedOlderThan} only (ported above).</li>
 *   <li>{@code testInitialiseWithCustomExecutor}, {@code testUnlockWhenInterruptedBlocksUntilKeyRemoved}:
 *       they replace (and freeze) the executor that {@code RedisLockRegistry} releases keys on; a
 *       Distlock registry releases on the caller's thread and has no executor to set.
 *       {@code DistlockLockRegistryTests} and {@code SpringIntegrationRedisLayoutTests} check that an
 *       interrupted holder's unlock still releases.</li>
 *   <li>{@code testRenewFallbackWhenCasCadNotSupported}, {@code testUnlockFallbackWhenCasCadNotSupported}:
 *       they mock Redis templates to refuse Redis 8.4's compare-and-set commands; Distlock runs Lua
 *       scripts only, so there is no fallback to test.</li>
 *   <li>{@code LockRegistryLeaderInitiatorTests.competingWithLock}, {@code testExceptionFromLock},
 *       {@code testGracefulLeaderSelectorExit}: they mock the lock registry (a lock that is lost,
 *       throws, or is interrupted inside {@code tryLock}) to test the initiator itself; no registry
 *       runs. {@code LeaderElectionTests} loses a real lease between two heartbeats instead.</li>
 * </ul>
 */
abstract class SpringIntegrationRegistryPortTests {

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

    /**
     * Writes the key of a lock as another holder would have it (another registry's id, another
     * client's owner), replacing whatever is there.
     * @param redisKey the Redis key, {@code <registryKey>:<lockKey>}
     */
    abstract void writeOtherHolder(String redisKey);

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
    void testLock() throws Exception {
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
    void testLockWithCustomTtl() throws Exception {
        DistlockLockRegistry registry = registry(this.registryKey, 100);
        long sleepTimeLongerThanDefaultTTL = 110;
        for (int i = 0; i < 10; i++) {
            DistributedLock lock = registry.obtain("foo");
            lock.lock(Duration.ofMillis(500));
            try {
                assertThat(getRedisLockRegistryLocks(registry)).hasSize(1);
                Thread.sleep(sleepTimeLongerThanDefaultTTL);
            } finally {
                lock.unlock();
            }
        }
        registry.expireUnusedOlderThan(-1000);
        assertThat(getRedisLockRegistryLocks(registry)).isEmpty();
    }

    @Test
    void testTryLockWithCustomTtl() throws Exception {
        DistlockLockRegistry registry = registry(this.registryKey, 100);
        long sleepTimeLongerThanDefaultTTL = 110;
        for (int i = 0; i < 10; i++) {
            DistributedLock lock = registry.obtain("foo");
            assertThat(lock.tryLock(Duration.ofMillis(100), Duration.ofMillis(500)))
                    .isTrue();
            try {
                assertThat(getRedisLockRegistryLocks(registry)).hasSize(1);
                Thread.sleep(sleepTimeLongerThanDefaultTTL);
            } finally {
                lock.unlock();
            }
        }
        registry.expireUnusedOlderThan(-1000);
        assertThat(getRedisLockRegistryLocks(registry)).isEmpty();
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
        Future<Object> result = newSingleThreadExecutor().submit(() -> {
            Lock lock2 = registry.obtain("foo");
            locked.set(lock2.tryLock(200, TimeUnit.MILLISECONDS));
            try {
                lock2.unlock();
            } catch (Exception e) {
                return e;
            }
            return null;
        });
        Object ise = result.get(10, TimeUnit.SECONDS);
        assertThat(ise).isInstanceOf(IllegalStateException.class);
        assertThat(((Exception) ise).getMessage()).contains("You do not own lock at");
        lock1.unlock();
        assertThat(locked.get()).isFalse();
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
        newSingleThreadExecutor().execute(() -> {
            Lock lock2 = registry.obtain("foo");
            try {
                latch1.countDown();
                lock2.lockInterruptibly();
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
            } catch (Exception e) {
                latch.countDown();
                return e;
            }
            return null;
        });
        assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(locked.get()).isFalse();
        lock.unlock();
        Object imse = result.get(10, TimeUnit.SECONDS);
        assertThat(imse).isInstanceOf(IllegalStateException.class);
        assertThat(((Exception) imse).getMessage()).contains("You do not own lock at");
        registry.expireUnusedOlderThan(-1000);
        assertThat(getRedisLockRegistryLocks(registry)).isEmpty();
    }

    @Test
    void testExpireTwoRegistries() throws Exception {
        DistlockLockRegistry registry1 = registry(this.registryKey, 100);
        DistlockLockRegistry registry2 = registry(this.registryKey, 100);
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
        assertThatExceptionOfType(ConcurrentModificationException.class)
                .isThrownBy(lock1::unlock)
                .withMessageContaining("Lock was released in the store due to expiration.");
    }

    @Test
    void testRenewalOnExpire() throws Exception {
        long expireAfter = 300L;
        // There: setRenewalTaskScheduler(...) with an expireAfter of 300 ms. Here: the watchdog, whose
        // lease is as long.
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
    void testExpireNotChanged() throws Exception {
        DistlockLockRegistry registry = registry(this.registryKey, 10000);
        Lock lock1 = registry.obtain("foo");
        lock1.lock();

        Long expire = getExpire(registry, "foo");

        Future<Object> result = newSingleThreadExecutor().submit(() -> {
            Lock lock2 = registry.obtain("foo");
            assertThat(lock2.tryLock()).isFalse();
            return null;
        });
        result.get();
        assertThat(getExpire(registry, "foo")).isEqualTo(expire);
        lock1.unlock();
    }

    @Test
    void twoRedisLockRegistryTest() throws Exception {
        DistlockLockRegistry registry1 = registry(this.registryKey, 10000);
        DistlockLockRegistry registry2 = registry(this.registryKey, 10000);
        String testKey = "testKey";

        Lock lock1 = registry1.obtain(testKey);
        Lock lock2 = registry2.obtain(testKey);
        CountDownLatch lock1Acquired = new CountDownLatch(1);
        CountDownLatch lock2Acquired = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService executorService = newFixedThreadPool(2);

        executorService.execute(() -> {
            lock1.lock();
            try {
                lock1Acquired.countDown();
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock1.unlock();
            }
        });
        assertThat(lock1Acquired.await(10, TimeUnit.SECONDS)).isTrue();
        executorService.execute(() -> {
            lock2.lock();
            try {
                lock2Acquired.countDown();
            } finally {
                lock2.unlock();
            }
        });
        assertThat(lock2Acquired.await(500, TimeUnit.MILLISECONDS)).isFalse();
        release.countDown();
        assertThat(lock2Acquired.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void multiRedisLockRegistryTest() throws Exception {
        String testKey = "testKey";
        long expireAfter = 100000L;
        int lockRegistryNum = 10;
        int testCnt = 10;
        List<DistlockLockRegistry> registries = new ArrayList<>();
        for (int i = 0; i < lockRegistryNum; i++) {
            registries.add(registry(this.registryKey, expireAfter));
        }
        ExecutorService executorService = newFixedThreadPool(lockRegistryNum);
        CountDownLatch countDownLatch = new CountDownLatch(lockRegistryNum * testCnt);
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();

        for (DistlockLockRegistry registry : registries) {
            executorService.execute(() -> {
                for (int i = 0; i < testCnt; i++) {
                    Lock lock = registry.obtain(testKey);
                    lock.lock();
                    try {
                        if (holders.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        holders.decrementAndGet();
                    } finally {
                        lock.unlock();
                        countDownLatch.countDown();
                    }
                }
            });
        }
        assertThat(countDownLatch.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(overlaps.get()).isZero();
    }

    @Test
    void earlyWakeUpTest() throws Exception {
        int threadCnt = 3;
        String testKey = "testKey";

        CountDownLatch tryLockReady = new CountDownLatch(threadCnt);
        CountDownLatch awaitTimeout = new CountDownLatch(threadCnt);

        List<Lock> locks = List.of(
                registry(this.registryKey).obtain(testKey),
                registry(this.registryKey).obtain(testKey),
                registry(this.registryKey).obtain(testKey));
        ExecutorService executorService = newFixedThreadPool(threadCnt);
        AtomicInteger expectOne = new AtomicInteger();

        for (Lock lock : locks) {
            executorService.execute(() -> {
                tryLockReady.countDown();
                try {
                    if (lock.tryLock(Long.MAX_VALUE, TimeUnit.MILLISECONDS)) {
                        expectOne.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    awaitTimeout.countDown();
                }
            });
        }

        assertThat(tryLockReady.await(10, TimeUnit.SECONDS)).isTrue();
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

            Thread t1 = new Thread(() -> {
                try {
                    latch.await();
                    // remove lock
                    registry.expireUnusedOlderThan(expirationTimeMillis);
                    // obtain new lock and try to acquire
                    Lock lock = registry.obtain(lockKey);
                    lock.tryLock(lockWaitTimeMillis, TimeUnit.MILLISECONDS);
                    lock.unlock();

                    lock1.set(lock);
                } catch (InterruptedException ignore) {
                }
            });

            Thread t2 = new Thread(() -> {
                try {
                    latch.await();
                    // remove lock
                    registry.expireUnusedOlderThan(expirationTimeMillis);
                    // obtain new lock and try to acquire
                    Lock lock = registry.obtain(lockKey);
                    lock.tryLock(lockWaitTimeMillis, TimeUnit.MILLISECONDS);
                    lock.unlock();

                    lock2.set(lock);
                } catch (InterruptedException ignore) {
                }
            });

            t1.start();
            t2.start();
            latch.countDown();
            t1.join();
            t2.join();

            // locks must be the same
            assertThat(lock1.get()).isEqualTo(lock2.get());
        }
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
    void testUnlockAfterLockStatusHasBeenExpiredAndDeleted() {
        DistlockLockRegistry registry = registry(this.registryKey);
        Lock lock = registry.obtain("foo");
        lock.lock();
        try {
            // simulate the status of lock has been expired and deleted by another thread or process
            redis.command("DEL", this.registryKey + ":foo");
        } finally {
            assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
        }
    }

    @Test
    void testUnlockAfterLockStatusHasBeenExpiredAndReacquiredByOther() {
        DistlockLockRegistry registry = registry(this.registryKey);
        Lock lock = registry.obtain("foo");
        lock.lock();
        try {
            // simulate the status of lock has been expired and reacquired by another thread or process
            writeOtherHolder(this.registryKey + ":foo");
        } finally {
            assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
        }
        // The other holder's lock is left alone.
        assertThat(exists(this.registryKey + ":foo")).isTrue();
        redis.command("DEL", this.registryKey + ":foo");
    }

    // LockRegistryLeaderInitiatorTests

    /** As there: each case's initiator, with latches its publisher counts down. */
    private final class Election {

        final LockRegistryLeaderInitiator initiator;
        final CountDownLatch granted = new CountDownLatch(1);
        final CountDownLatch revoked = new CountDownLatch(1);

        Election(DistlockLockRegistry registry) {
            initiator = new LockRegistryLeaderInitiator(registry, new DefaultCandidate());
            initiator.setLeaderEventPublisher(new CountingPublisher(granted, revoked));
        }
    }

    @Test
    void startAndStop() throws Exception {
        Election election = new Election(registry(this.registryKey));
        LockRegistryLeaderInitiator initiator = election.initiator;
        assertThat(initiator.getContext().isLeader()).isFalse();
        initiator.start();
        assertThat(initiator.isRunning()).isTrue();
        assertThat(election.granted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(initiator.getContext().isLeader()).isTrue();
        Thread.sleep(200L);
        assertThat(initiator.getContext().isLeader()).isTrue();
        initiator.stop();
        assertThat(election.revoked.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(initiator.getContext().isLeader()).isFalse();
    }

    @Test
    void yieldLeadership() throws Exception {
        Election election = new Election(registry(this.registryKey));
        LockRegistryLeaderInitiator initiator = election.initiator;
        assertThat(initiator.getContext().isLeader()).isFalse();
        initiator.start();
        assertThat(initiator.isRunning()).isTrue();
        assertThat(election.granted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(initiator.getContext().isLeader()).isTrue();
        initiator.getContext().yield();
        assertThat(election.revoked.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(initiator.getContext().isLeader()).isFalse();
        initiator.stop();
    }

    @Test
    void competing() throws Exception {
        DistlockLockRegistry registry = registry(this.registryKey);
        Election election = new Election(registry);
        LockRegistryLeaderInitiator another = new LockRegistryLeaderInitiator(registry, new DefaultCandidate());
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
    void testExceptionFromEvent() throws Exception {
        CountDownLatch onGranted = new CountDownLatch(1);

        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry(this.registryKey));

        initiator.setLeaderEventPublisher(new DefaultLeaderEventPublisher() {

            @Override
            public void publishOnGranted(Object source, Context context, String role) {
                try {
                    throw new RuntimeException("intentional");
                } finally {
                    onGranted.countDown();
                }
            }
        });

        initiator.start();

        assertThat(onGranted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(initiator.getContext().isLeader()).isTrue();

        initiator.stop();
    }

    private static final class CountingPublisher implements LeaderEventPublisher {

        private final CountDownLatch granted;

        private final @Nullable CountDownLatch revoked;

        CountingPublisher(CountDownLatch granted, @Nullable CountDownLatch revoked) {
            this.granted = granted;
            this.revoked = revoked;
        }

        CountingPublisher(CountDownLatch granted) {
            this(granted, null);
        }

        @Override
        public void publishOnRevoked(Object source, Context context, String role) {
            if (this.revoked != null) {
                this.revoked.countDown();
            }
        }

        @Override
        public void publishOnFailedToAcquire(Object source, Context context, String role) {}

        @Override
        public void publishOnGranted(Object source, Context context, String role) {
            this.granted.countDown();
        }
    }
}
