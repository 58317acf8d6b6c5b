package dev.distlock.spring.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of a ShedLock lock provider, in our own words after ShedLock's shared suites
 * ({@code AbstractLockProviderIntegrationTest} and {@code AbstractExtensibleLockProviderIntegrationTest},
 * which are not published to Maven Central), run against real Redis by each layout of
 * {@link DistlockLockProvider}. "Another node" is a provider on a second {@link LockClient}.
 *
 * <p>Every case of both suites applies. Their times are shortened (a 600 ms {@code lockAtLeastFor}
 * instead of 2 s, 30 fuzz iterations instead of 100) to keep the build fast; ShedLock's fuzz tester
 * itself is in {@code shedlock-test-support}, so the fuzz case is rewritten here on
 * {@link DefaultLockingTaskExecutor}.
 */
abstract class AbstractLockProviderContractTests {

    static final RedisServer redis = RedisServers.shared();

    private LockClient node;
    private LockClient otherNode;
    protected ExtensibleLockProvider provider;
    protected ExtensibleLockProvider otherProvider;
    protected String name;

    /** @return a provider of the layout under test on the given client */
    abstract ExtensibleLockProvider provider(LockClient client);

    /** @return whether Redis holds the job's lock in the layout under test */
    abstract boolean isLockedInRedis(String jobName);

    @BeforeEach
    void setUpNodes() {
        node = LockClient.create(redis.uri());
        otherNode = LockClient.create(redis.uri());
        provider = provider(node);
        otherProvider = provider(otherNode);
        name = "job-" + UUID.randomUUID();
    }

    @AfterEach
    void tearDownNodes() {
        node.close();
        otherNode.close();
    }

    protected LockClient node() {
        return node;
    }

    protected LockClient otherNode() {
        return otherNode;
    }

    static LockConfiguration config(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
    }

    static LockConfiguration config(String name) {
        return config(name, Duration.ofMinutes(5), Duration.ZERO);
    }

    private SimpleLock lock(Duration lockAtMostFor) {
        Optional<SimpleLock> lock = provider.lock(config(name, lockAtMostFor, Duration.ZERO));
        assertThat(lock).isNotEmpty();
        assertThat(isLockedInRedis(name)).isTrue();
        return lock.get();
    }

    private static SimpleLock extended(SimpleLock lock, Duration lockAtLeastFor) {
        Optional<SimpleLock> extended = lock.extend(Duration.ofSeconds(10), lockAtLeastFor);
        assertThat(extended).isNotEmpty();
        return extended.get();
    }

    @Test
    void whenLockedThenRedisHoldsItUntilUnlocked() {
        Optional<SimpleLock> lock = provider.lock(config(name));
        assertThat(lock).isNotEmpty();
        assertThat(isLockedInRedis(name)).isTrue();
        lock.get().unlock();
        assertThat(isLockedInRedis(name)).isFalse();
    }

    @Test
    void whenLockedThenNoSecondLockOnThisNodeOrAnother() {
        Optional<SimpleLock> lock = provider.lock(config(name));
        assertThat(lock).isNotEmpty();
        assertThat(provider.lock(config(name))).isEmpty();
        assertThat(otherProvider.lock(config(name))).isEmpty();
        lock.get().unlock();
        Optional<SimpleLock> other = otherProvider.lock(config(name));
        assertThat(other).isNotEmpty();
        other.get().unlock();
    }

    @Test
    void whenTwoJobsLockThenTheirLocksAreIndependent() {
        Optional<SimpleLock> first = provider.lock(config(name));
        Optional<SimpleLock> second = provider.lock(config(name + "-2"));
        assertThat(first).isNotEmpty();
        assertThat(second).isNotEmpty();
        first.get().unlock();
        second.get().unlock();
    }

    @Test
    void whenLockedRightAfterUnlockThenItIsTakenAgainEveryTime() {
        for (int i = 0; i < 10; i++) {
            Optional<SimpleLock> lock = provider.lock(config(name));
            assertThat(lock).as("run %d", i).isNotEmpty();
            assertThat(provider.lock(config(name))).isEmpty();
            lock.get().unlock();
        }
    }

    @Test
    void whenLockAtMostForPassesThenTheLockLapsesWithoutUnlock() {
        assertThat(provider.lock(config(name, Duration.ofMillis(200), Duration.ZERO)))
                .isNotEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> !isLockedInRedis(name));
        Optional<SimpleLock> next = otherProvider.lock(config(name, Duration.ofMillis(200), Duration.ZERO));
        assertThat(next).isNotEmpty();
        next.get().unlock();
    }

    @Test
    void whenUnlockedBeforeLockAtLeastForThenEveryNodeIncludingThisOneWaitsItOut() {
        Duration atLeast = Duration.ofMillis(600);
        Instant lockedAt = Instant.now();
        Optional<SimpleLock> lock = provider.lock(config(name, Duration.ofSeconds(5), atLeast));
        assertThat(lock).isNotEmpty();
        lock.get().unlock();
        assertThat(provider.lock(config(name)))
                .as("this node, before lockAtLeastFor")
                .isEmpty();
        assertThat(otherProvider.lock(config(name)))
                .as("another node, before lockAtLeastFor")
                .isEmpty();
        assertThat(isLockedInRedis(name)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> !isLockedInRedis(name));
        assertThat(Duration.between(lockedAt, Instant.now())).isGreaterThanOrEqualTo(atLeast);
        Optional<SimpleLock> again = provider.lock(config(name));
        assertThat(again).isNotEmpty();
        again.get().unlock();
    }

    @Test
    void whenNodesRunJobsConcurrentlyThenNoIncrementIsLost() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            int[] counters = new int[2];
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                LockingTaskExecutor executor = new DefaultLockingTaskExecutor(t % 2 == 0 ? provider : otherProvider);
                int job = t % 4 < 2 ? 0 : 1;
                int iterations = t == 0 ? 5 : 30;
                workers.add(pool.submit(() -> {
                    int done = 0;
                    while (done < iterations) {
                        LockingTaskExecutor.TaskResult<Boolean> result;
                        try {
                            result = executor.executeWithLock(
                                    () -> {
                                        int seen = counters[job];
                                        Thread.sleep(1);
                                        counters[job] = seen + 1;
                                        return true;
                                    },
                                    config(name + "-" + job, Duration.ofMinutes(5), Duration.ofMillis(5)));
                        } catch (Throwable ex) {
                            throw new AssertionError(ex);
                        }
                        if (result.wasExecuted()) {
                            done++;
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(90, TimeUnit.SECONDS);
            }
            assertThat(counters[0]).isEqualTo(3 * 30 + 5);
            assertThat(counters[1]).isEqualTo(4 * 30);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void whenExtendedThenTheLockOutlivesItsFirstLockAtMostFor() throws Exception {
        SimpleLock lock = lock(Duration.ofMillis(600));
        SimpleLock longer = extended(lock, Duration.ZERO);
        Thread.sleep(800);
        assertThat(isLockedInRedis(name)).isTrue();
        assertThat(otherProvider.lock(config(name))).isEmpty();
        longer.unlock();
        assertThat(isLockedInRedis(name)).isFalse();
    }

    @Test
    void whenExtendedSeveralTimesThenTheLastLockHoldsAndUnlocks() throws Exception {
        SimpleLock lock =
                extended(extended(extended(lock(Duration.ofMillis(600)), Duration.ZERO), Duration.ZERO), Duration.ZERO);
        Thread.sleep(800);
        assertThat(isLockedInRedis(name)).isTrue();
        lock.unlock();
        assertThat(isLockedInRedis(name)).isFalse();
    }

    @Test
    void whenUnlockedThenItCannotBeExtended() {
        SimpleLock lock = lock(Duration.ofSeconds(5));
        lock.unlock();
        assertThat(isLockedInRedis(name)).isFalse();
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void whenLockAtMostForHasPassedThenExtendReturnsNothingAndTakesNothing() throws Exception {
        Optional<SimpleLock> lock = provider.lock(config(name, Duration.ofMillis(20), Duration.ZERO));
        assertThat(lock).isNotEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> !isLockedInRedis(name));
        assertThat(lock.get().extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertThat(isLockedInRedis(name)).isFalse();
    }

    @Test
    void whenExtendedWithLockAtLeastForThenUnlockKeepsItTaken() {
        SimpleLock lock = extended(lock(Duration.ofSeconds(10)), Duration.ofSeconds(9));
        lock.unlock();
        assertThat(isLockedInRedis(name)).isTrue();
        assertThat(otherProvider.lock(config(name))).isEmpty();
    }

    @Test
    void whenExtendedThenTheOldLockCanNeitherBeExtendedNorUnlocked() {
        SimpleLock lock = lock(Duration.ofSeconds(10));
        SimpleLock newer = extended(lock, Duration.ZERO);
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        newer.unlock();
        assertThat(isLockedInRedis(name)).isFalse();
    }

    @Test
    void whenArgumentsAreBadThenTheErrorNamesThemAndNothingIsLocked() {
        assertThatThrownBy(() -> provider.lock(config(" ")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'name'");
        assertThatThrownBy(() -> provider.lock(config(name, Duration.ofSeconds(5), Duration.ofMillis(-1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'lockAtLeastFor'")
                .hasMessageContaining(name);
        assertThatThrownBy(() -> provider.lock(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("'lockConfiguration'");
        // ShedLock's own configuration refuses a lockAtLeastFor longer than lockAtMostFor (and so a
        // negative lockAtMostFor), naming the lock; the provider checks it again for other callers.
        assertThatThrownBy(() -> provider.lock(config(name, Duration.ofSeconds(1), Duration.ofSeconds(5))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtLeastFor")
                .hasMessageContaining("lockAtMostFor");
        assertThatThrownBy(() -> provider.lock(config(name, Duration.ofSeconds(-1), Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtMostFor");
        assertThat(isLockedInRedis(name)).isFalse();
        // A lockAtMostFor that ran out before the call takes nothing.
        assertThat(provider.lock(new LockConfiguration(
                        ClockProvider.now().minusSeconds(10), name, Duration.ofSeconds(5), Duration.ZERO)))
                .isEmpty();
        assertThat(isLockedInRedis(name)).isFalse();

        SimpleLock lock = lock(Duration.ofSeconds(10));
        // ShedLock's own configuration refuses lockAtLeastFor > lockAtMostFor, naming both.
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(1), Duration.ofSeconds(5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtLeastFor");
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'lockAtLeastFor'");
        // A refused extension leaves the lock valid, held, and releasable.
        lock.unlock();
        assertThat(isLockedInRedis(name)).isFalse();
    }
}
