package dev.distlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The single-registry cases of Spring Integration's {@code RedisLockRegistryTests} (lock, lock
 * interruptibly, reentrancy, two threads, the wrong thread unlocking, locked tasks), in our own
 * words, on a registry built by {@link DistlockLockRegistry#compatibleWithSpringIntegrationRedis},
 * checking the Redis data as that registry keeps it. The capacity, executor and compare-and-set
 * fallback cases do not apply, for the reasons {@link DistlockLockRegistryTests} gives.
 */
class SpringIntegrationRedisLayoutTests {

    private static final RedisServer redis = RedisServers.shared();

    private LockClient client;
    private DistlockLockRegistry registry;
    private ExecutorService pool;
    private String registryKey;

    @BeforeEach
    void setUp() {
        client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .keyPrefix("app:")
                .watchdogTimeout(Duration.ofMillis(900))
                .build());
        registryKey = "si-" + UUID.randomUUID();
        registry = DistlockLockRegistry.compatibleWithSpringIntegrationRedis(client, registryKey);
        pool = Executors.newFixedThreadPool(4);
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        client.close();
    }

    private String exists(String lockKey) {
        return redis.command("EXISTS", registryKey + ":" + lockKey).trim();
    }

    private boolean triesElsewhere(DistlockLockRegistry on, String lockKey) throws Exception {
        return pool.submit(() -> {
                    Lock lock = on.obtain(lockKey);
                    boolean taken = lock.tryLock();
                    if (taken) {
                        lock.unlock();
                    }
                    return taken;
                })
                .get(30, TimeUnit.SECONDS);
    }

    @Test
    void whenLockedThenTheKeyIsTheRegistryKeyAndLockKeyWithoutPrefixHoldingOneIdForAllThreads() throws Exception {
        DistributedLock lock = registry.obtain("a");
        lock.lock();
        String value = redis.command("GET", registryKey + ":a").trim();
        assertThat(value).matches("[0-9a-f-]{36}");
        registry.obtain("b").lockInterruptibly();
        assertThat(pool.submit(() -> {
                            Lock other = registry.obtain("c");
                            other.lock();
                            other.unlock();
                            return true;
                        })
                        .get(30, TimeUnit.SECONDS))
                .isTrue();
        assertThat(redis.command("GET", registryKey + ":b").trim()).isEqualTo(value);
        assertThat(redis.command("EXISTS", "app:a").trim()).isEqualTo("0");
        lock.unlock();
        registry.obtain("b").unlock();
        assertThat(exists("a")).isEqualTo("0");
        assertThat(exists("b")).isEqualTo("0");
    }

    @Test
    void whenTheHolderTakesTheLockAgainThenItIsReentrantAndTheNestedUnlockKeepsIt() throws Exception {
        DistributedLock lock = registry.obtain("a");
        lock.lock(Duration.ofSeconds(5));
        Thread.sleep(200);
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(20))).isTrue();
        assertThat(Long.parseLong(redis.command("PTTL", registryKey + ":a").trim()))
                .as("taking it again restarts the expiry")
                .isGreaterThan(10_000);
        lock.unlock();
        assertThat(exists("a")).isEqualTo("1");
        assertThat(triesElsewhere(registry, "a")).isFalse();
        lock.unlock();
        assertThat(exists("a")).isEqualTo("0");
    }

    @Test
    void whenAnotherThreadTriesThenItIsExcludedAndItsUnlockFailsAsSpringIntegrations() throws Exception {
        DistributedLock lock = registry.obtain("a");
        lock.lock();
        assertThat(triesElsewhere(registry, "a")).isFalse();
        Future<?> wrong = pool.submit(() -> registry.obtain("a").unlock());
        assertThatThrownBy(wrong::get)
                .hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining("You do not own lock at " + registryKey + ":a");
        lock.unlock();
        assertThat(triesElsewhere(registry, "a")).isTrue();
    }

    @Test
    void whenTwoRegistriesShareAClientThenTheyAreTwoHoldersAsSpringIntegrationScopesLocksByRegistry() throws Exception {
        DistlockLockRegistry second = DistlockLockRegistry.compatibleWithSpringIntegrationRedis(client, registryKey);
        DistributedLock lock = registry.obtain("a");
        lock.lock();
        assertThat(triesElsewhere(second, "a")).isFalse();
        lock.unlock();
        assertThat(triesElsewhere(second, "a")).isTrue();
    }

    @Test
    void whenTheHolderReleasesThenAWaitingThreadGetsItAndAnInterruptedWaitLeavesNothing() throws Exception {
        DistributedLock lock = registry.obtain("a");
        lock.lock();
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Boolean> waiter = pool.submit(() -> {
            waiting.countDown();
            Lock mine = registry.obtain("a");
            mine.lockInterruptibly();
            mine.unlock();
            return true;
        });
        Future<?> interrupted = pool.submit(() -> {
            registry.obtain("a").lockInterruptibly();
            return null;
        });
        assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(300);
        interrupted.cancel(true);
        lock.unlock();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(triesElsewhere(registry, "a")).isTrue();
    }

    @Test
    void whenTheHolderIsInterruptedThenUnlockStillReleasesAndKeepsTheFlag() {
        DistributedLock lock = registry.obtain("a");
        lock.lock();
        Thread.currentThread().interrupt();
        try {
            lock.unlock();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(exists("a")).isEqualTo("0");
    }

    @Test
    void whenTasksRunLockedThenAWaitCanTimeOut() throws Exception {
        DistributedLock lock = registry.obtain("a");
        lock.lock();
        Future<?> late = pool.submit(() -> {
            registry.executeLocked("a", Duration.ofMillis(200), () -> {});
            return null;
        });
        assertThatThrownBy(late::get).hasCauseInstanceOf(TimeoutException.class);
        lock.unlock();
        assertThat(registry.executeLocked("a", Duration.ofSeconds(1), () -> "ran"))
                .isEqualTo("ran");
    }

    @Test
    void whenTheClientClosesThenTheWatchdogStopsAndTheLockLapses() throws Exception {
        DistributedLock lock = registry.obtain("a");
        lock.lock();
        client.close();
        Thread.sleep(1_500);
        assertThat(exists("a")).isEqualTo("0");
    }

    @Test
    void whenAskedForWhatTheLayoutCannotDoThenTheErrorSaysSo() {
        assertThatThrownBy(() -> registry.setFenced(true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot be fenced");
        assertThat(registry.getFencingToken("a")).isEmpty();
        assertThatThrownBy(() -> DistlockLockRegistry.compatibleWithSpringIntegrationRedis(client, " "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'registryKey'");
        assertThatThrownBy(() -> registry.obtain(42))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'lockKey'");
        assertThatThrownBy(() -> registry.obtain("a").lock(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ttl'");
    }
}
