package dev.distlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A rolling deploy from Spring Integration's own {@link RedisLockRegistry} (the version Boot's BOM
 * manages) to {@link DistlockLockRegistry#compatibleWithSpringIntegrationRedis}: both on one Redis
 * server under one registry key, as instances of the old and the new version, with each of
 * {@code RedisLockRegistry}'s lock types. The cases of Spring Integration's
 * {@code RedisLockRegistryTests} that concern two registries (two threads, two registries, expiry,
 * a waiter leaving the holder's expiry alone, renewal, the unlock of an expired lock) run here
 * across the two; the single-registry cases run on the compatible registry in
 * {@link SpringIntegrationRedisLayoutTests}.
 */
class SpringIntegrationRedisSideBySideTests {

    private static final RedisServer redis = RedisServers.shared();

    private static LettuceConnectionFactory connections;

    private final List<RedisLockRegistry> oldRegistries = new ArrayList<>();
    private final List<LockClient> clients = new ArrayList<>();
    private String registryKey;
    private String lockKey;
    private ExecutorService pool;

    @BeforeAll
    static void connect() {
        URI uri = URI.create(redis.uri());
        connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
        connections.afterPropertiesSet();
        connections.start();
    }

    @AfterAll
    static void disconnect() {
        connections.destroy();
    }

    @BeforeEach
    void setUp() {
        registryKey = "si-" + UUID.randomUUID();
        lockKey = "orders";
        pool = Executors.newFixedThreadPool(8);
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        oldRegistries.forEach(RedisLockRegistry::destroy);
        clients.forEach(LockClient::close);
    }

    private RedisLockRegistry oldInstance(RedisLockType type, Duration expireAfter) {
        RedisLockRegistry registry = new RedisLockRegistry(connections, registryKey, expireAfter);
        registry.setRedisLockType(type);
        oldRegistries.add(registry);
        return registry;
    }

    private RedisLockRegistry oldInstance(RedisLockType type) {
        return oldInstance(type, Duration.ofSeconds(60));
    }

    private DistlockLockRegistry newInstance(Duration watchdogTimeout) {
        LockClient client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .watchdogTimeout(watchdogTimeout)
                .build());
        clients.add(client);
        return DistlockLockRegistry.compatibleWithSpringIntegrationRedis(client, registryKey);
    }

    private DistlockLockRegistry newInstance() {
        return newInstance(Duration.ofSeconds(30));
    }

    private String redisKey() {
        return registryKey + ":" + lockKey;
    }

    private long pttl() {
        return Long.parseLong(redis.command("PTTL", redisKey()).trim());
    }

    /** Tries the lock on a thread of its own, as another thread or instance would. */
    private boolean triesElsewhere(LockRegistry<?> registry, Duration wait) throws Exception {
        return pool.submit(() -> {
                    Lock lock = registry.obtain(lockKey);
                    boolean taken = lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS);
                    if (taken) {
                        lock.unlock();
                    }
                    return taken;
                })
                .get(wait.toSeconds() + 30, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(RedisLockType.class)
    void whenTheOldVersionHoldsTheLockThenTheNewOneIsExcludedUntilItIsReleased(RedisLockType type) throws Exception {
        RedisLockRegistry old = oldInstance(type);
        DistlockLockRegistry current = newInstance();
        Lock held = old.obtain(lockKey);
        held.lock();
        assertThat(redis.command("EXISTS", redisKey()).trim()).isEqualTo("1");
        assertThat(triesElsewhere(current, Duration.ZERO)).isFalse();
        assertThat(triesElsewhere(current, Duration.ofMillis(300))).isFalse();
        held.unlock();
        assertThat(triesElsewhere(current, Duration.ZERO)).isTrue();
        assertThat(redis.command("EXISTS", redisKey()).trim()).isEqualTo("0");
    }

    @ParameterizedTest
    @EnumSource(RedisLockType.class)
    void whenTheNewVersionHoldsTheLockThenTheOldOneIsExcludedUntilItIsReleased(RedisLockType type) throws Exception {
        RedisLockRegistry old = oldInstance(type);
        DistlockLockRegistry current = newInstance();
        DistributedLock held = current.obtain(lockKey);
        held.lock();
        assertThat(redis.command("TYPE", redisKey()).trim()).isEqualTo("string");
        assertThat(triesElsewhere(old, Duration.ZERO)).isFalse();
        assertThat(triesElsewhere(old, Duration.ofMillis(300))).isFalse();
        held.unlock();
        assertThat(triesElsewhere(old, Duration.ZERO)).isTrue();
        assertThat(redis.command("EXISTS", redisKey()).trim()).isEqualTo("0");
    }

    @ParameterizedTest
    @EnumSource(RedisLockType.class)
    void whenTheNewVersionReleasesThenAnOldWaiterGetsTheLockAtOnce(RedisLockType type) throws Exception {
        RedisLockRegistry old = oldInstance(type);
        DistlockLockRegistry current = newInstance();
        DistributedLock held = current.obtain(lockKey);
        held.lock();
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Long> waiter = pool.submit(() -> {
            Lock lock = old.obtain(lockKey);
            waiting.countDown();
            // A pub/sub waiter that hears no release sleeps out its whole wait before trying again.
            boolean taken = lock.tryLock(20, TimeUnit.SECONDS);
            long at = System.nanoTime();
            if (taken) {
                lock.unlock();
            }
            return taken ? at : -1;
        });
        assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(300); // let the waiter reach its wait; the bound below does not depend on it
        long releasedAt = System.nanoTime();
        held.unlock();
        long takenAt = waiter.get(30, TimeUnit.SECONDS);
        assertThat(takenAt).as("the old waiter got the lock").isPositive();
        assertThat(Duration.ofNanos(takenAt - releasedAt)).isLessThan(Duration.ofSeconds(2));
    }

    @ParameterizedTest
    @EnumSource(RedisLockType.class)
    void whenTheOldVersionReleasesThenANewWaiterGetsTheLockAtOnce(RedisLockType type) throws Exception {
        RedisLockRegistry old = oldInstance(type);
        DistlockLockRegistry current = newInstance();
        Lock held = old.obtain(lockKey);
        held.lock();
        Future<Long> waiter = pool.submit(() -> {
            DistributedLock lock = current.obtain(lockKey);
            boolean taken = lock.tryLock(20, TimeUnit.SECONDS);
            long at = System.nanoTime();
            if (taken) {
                lock.unlock();
            }
            return taken ? at : -1;
        });
        Thread.sleep(300);
        long releasedAt = System.nanoTime();
        held.unlock();
        long takenAt = waiter.get(30, TimeUnit.SECONDS);
        assertThat(takenAt).isPositive();
        // Woken by the release, not by a retry a lease later; the slack is a loaded machine's.
        assertThat(Duration.ofNanos(takenAt - releasedAt)).isLessThan(Duration.ofSeconds(2));
    }

    @ParameterizedTest
    @EnumSource(RedisLockType.class)
    void whenTheNewVersionHoldsPastItsWatchdogTimeoutThenTheWatchdogKeepsTheOldOneOut(RedisLockType type)
            throws Exception {
        RedisLockRegistry old = oldInstance(type);
        DistlockLockRegistry current = newInstance(Duration.ofMillis(1500));
        DistributedLock held = current.obtain(lockKey);
        held.lock();
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4000);
        while (System.nanoTime() < until) {
            assertThat(triesElsewhere(old, Duration.ZERO)).isFalse();
            assertThat(pttl()).isBetween(1L, 1500L);
            Thread.sleep(200);
        }
        held.unlock();
        assertThat(triesElsewhere(old, Duration.ZERO)).isTrue();
    }

    @ParameterizedTest
    @EnumSource(RedisLockType.class)
    void whenTheOldVersionsLockExpiresThenTheNewOneTakesItAndTheOldUnlockFailsWithoutFreeingIt(RedisLockType type)
            throws Exception {
        RedisLockRegistry old = oldInstance(type, Duration.ofMillis(300));
        DistlockLockRegistry current = newInstance();
        Lock expired = old.obtain(lockKey);
        expired.lock();
        await().atMost(Duration.ofSeconds(10)).until(() -> triesElsewhere(current, Duration.ZERO));
        DistributedLock taken = current.obtain(lockKey);
        assertThat(pool.submit(() -> taken.tryLock()).get(10, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(expired::unlock).isInstanceOf(ConcurrentModificationException.class);
        assertThat(redis.command("EXISTS", redisKey()).trim()).isEqualTo("1");
        assertThat(triesElsewhere(old, Duration.ZERO)).isFalse();
    }

    @ParameterizedTest
    @EnumSource(RedisLockType.class)
    void whenTheNewVersionsFixedLeaseRunsOutThenTheOldOneTakesItAndTheNewUnlockReportsIt(RedisLockType type)
            throws Exception {
        RedisLockRegistry old = oldInstance(type);
        DistlockLockRegistry current = newInstance();
        DistributedLock expired = current.obtain(lockKey);
        expired.lock(Duration.ofMillis(300));
        await().atMost(Duration.ofSeconds(10)).until(() -> triesElsewhere(old, Duration.ZERO));
        Lock taken = old.obtain(lockKey);
        assertThat(pool.submit(() -> taken.tryLock()).get(10, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(expired::unlock)
                .isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining(redisKey());
        assertThat(redis.command("EXISTS", redisKey()).trim()).isEqualTo("1");
    }

    @ParameterizedTest
    @EnumSource(RedisLockType.class)
    void whenAWaiterOfEitherVersionFailsThenTheHoldersExpiryIsUnchanged(RedisLockType type) throws Exception {
        RedisLockRegistry old = oldInstance(type, Duration.ofSeconds(10));
        DistlockLockRegistry current = newInstance();
        Lock held = old.obtain(lockKey);
        held.lock();
        assertThat(triesElsewhere(current, Duration.ofMillis(300))).isFalse();
        assertThat(pttl()).isBetween(1L, 10_000L - 250);
        held.unlock();

        DistributedLock heldNew = current.obtain(lockKey);
        heldNew.lock(Duration.ofSeconds(10));
        assertThat(triesElsewhere(old, Duration.ofMillis(300))).isFalse();
        assertThat(pttl()).isBetween(1L, 10_000L - 250);
        heldNew.unlock();
    }

    @ParameterizedTest
    @EnumSource(RedisLockType.class)
    void whenEitherVersionRenewsThenOnlyItsOwnHoldIsExtended(RedisLockType type) throws Exception {
        RedisLockRegistry old = oldInstance(type, Duration.ofSeconds(2));
        DistlockLockRegistry current = newInstance();
        DistributedLock held = current.obtain(lockKey);
        held.lock(Duration.ofSeconds(2));
        current.renewLock(lockKey, Duration.ofSeconds(20));
        assertThat(pttl()).isGreaterThan(10_000);
        // The old registry renews by value, not by thread: it does not hold the key, so it fails.
        assertThatThrownBy(() -> old.renewLock(lockKey, Duration.ofSeconds(60)))
                .isInstanceOf(IllegalStateException.class);
        assertThat(pttl()).isLessThanOrEqualTo(20_000);
        held.unlock();
        assertThatThrownBy(() -> current.renewLock(lockKey)).isInstanceOf(IllegalStateException.class);
    }

    @ParameterizedTest
    @EnumSource(RedisLockType.class)
    void whenThreadsOfBothVersionsCountUnderTheLockThenNoIncrementIsLost(RedisLockType type) throws Exception {
        List<LockRegistry<?>> instances =
                List.of(oldInstance(type), newInstance(), oldInstance(RedisLockType.SPIN_LOCK), newInstance());
        int[] counter = new int[1];
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            LockRegistry<?> instance = instances.get(t % instances.size());
            workers.add(pool.submit(() -> {
                Lock lock = instance.obtain(lockKey);
                for (int i = 0; i < 25; i++) {
                    lock.lock();
                    try {
                        int seen = counter[0];
                        Thread.yield();
                        counter[0] = seen + 1;
                    } finally {
                        lock.unlock();
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(120, TimeUnit.SECONDS);
        }
        assertThat(counter[0]).isEqualTo(8 * 25);
        assertThat(redis.command("EXISTS", redisKey()).trim()).isEqualTo("0");
    }
}
