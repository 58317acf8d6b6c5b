package dev.distlock.spring.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The three steps from ShedLock's Redis layout to Distlock's ({@code compatibleWithShedLockRedis},
 * {@code transitionalFromShedLockRedis}, the default provider), each instance of a neighbouring pair
 * running a frequent job with a shared register of runs in progress: no two runs at once. Jumping
 * from the first step to the last does overlap, which is why the middle step exists.
 */
class ShedLockThreeStepRollingTests {

    private static final RedisServer redis = RedisServers.shared();
    private static final String ENVIRONMENT = "rolling";
    private static final Duration RUNNING = Duration.ofSeconds(4);

    private final List<LockClient> clients = new ArrayList<>();
    private ExecutorService pool;
    private String job;

    @BeforeEach
    void setUp() {
        pool = Executors.newFixedThreadPool(4);
        job = "job-" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        clients.forEach(LockClient::close);
    }

    private LockClient client() {
        LockClient client = LockClient.create(redis.uri());
        clients.add(client);
        return client;
    }

    private LockProvider first() {
        return DistlockLockProvider.compatibleWithShedLockRedis(client(), ENVIRONMENT);
    }

    private LockProvider middle() {
        return DistlockLockProvider.transitionalFromShedLockRedis(client(), ENVIRONMENT);
    }

    private LockProvider last() {
        return new DistlockLockProvider(client());
    }

    /** Runs the job on each instance as often as it can for a while; returns the overlaps seen. */
    private int overlapsOfAFrequentJob(LockProvider one, LockProvider other, int[] runs) throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Future<?>> instances = new ArrayList<>();
        long until = System.nanoTime() + RUNNING.toNanos();
        for (int i = 0; i < 2; i++) {
            LockProvider provider = i == 0 ? one : other;
            int index = i;
            instances.add(pool.submit(() -> {
                DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
                while (System.nanoTime() < until) {
                    executor.executeWithLock(
                            (Runnable) () -> {
                                if (running.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                runs[index]++;
                                try {
                                    Thread.sleep(3);
                                } catch (InterruptedException ex) {
                                    Thread.currentThread().interrupt();
                                } finally {
                                    running.decrementAndGet();
                                }
                            },
                            new LockConfiguration(ClockProvider.now(), job, Duration.ofSeconds(30), Duration.ZERO));
                    Thread.sleep(1);
                }
                return null;
            }));
        }
        for (Future<?> instance : instances) {
            instance.get(60, TimeUnit.SECONDS);
        }
        return overlaps.get();
    }

    @Test
    void whenOneInstanceIsOnTheFirstStepAndOneOnTheMiddleThenNoRunsOverlap() throws Exception {
        int[] runs = new int[2];
        assertThat(overlapsOfAFrequentJob(first(), middle(), runs)).isZero();
        assertThat(runs[0]).isGreaterThan(10);
        assertThat(runs[1]).isGreaterThan(10);
    }

    @Test
    void whenOneInstanceIsOnTheMiddleStepAndOneOnTheLastThenNoRunsOverlap() throws Exception {
        int[] runs = new int[2];
        assertThat(overlapsOfAFrequentJob(middle(), last(), runs)).isZero();
        assertThat(runs[0]).isGreaterThan(10);
        assertThat(runs[1]).isGreaterThan(10);
    }

    @Test
    void whenTheFirstStepJumpsToTheLastThenRunsOverlap() throws Exception {
        int[] runs = new int[2];
        assertThat(overlapsOfAFrequentJob(first(), last(), runs)).isPositive();
    }

    @Test
    void whenTheMiddleStepFindsTheDistlockLockTakenThenItFreesShedLocksKeyAtOnce() {
        LockProvider middle = middle();
        Optional<SimpleLock> held = last().lock(config(Duration.ZERO));
        assertThat(held).isNotEmpty();
        assertThat(middle.lock(config(Duration.ofSeconds(10)))).isEmpty();
        assertThat(redis.command("EXISTS", "job-lock:" + ENVIRONMENT + ":" + job)
                        .trim())
                .isEqualTo("0");
        held.get().unlock();
        Optional<SimpleLock> both = middle.lock(config(Duration.ofSeconds(10)));
        assertThat(both).isNotEmpty();
        assertThat(first().lock(config(Duration.ZERO))).isEmpty();
        assertThat(last().lock(config(Duration.ZERO))).isEmpty();
        both.get().unlock();
        // lockAtLeastFor holds both layouts until it has passed.
        assertThat(first().lock(config(Duration.ZERO))).isEmpty();
        assertThat(last().lock(config(Duration.ZERO))).isEmpty();
    }

    @Test
    void whenTheMiddleStepExtendsARunThenBothLayoutsStayTaken() throws Exception {
        Optional<SimpleLock> lock =
                middle().lock(new LockConfiguration(ClockProvider.now(), job, Duration.ofMillis(600), Duration.ZERO));
        assertThat(lock).isNotEmpty();
        Optional<SimpleLock> extended = lock.get().extend(Duration.ofSeconds(30), Duration.ZERO);
        assertThat(extended).isNotEmpty();
        Thread.sleep(1_000);
        assertThat(first().lock(config(Duration.ZERO))).isEmpty();
        assertThat(last().lock(config(Duration.ZERO))).isEmpty();
        extended.get().unlock();
        Optional<SimpleLock> again = last().lock(config(Duration.ZERO));
        assertThat(again).isNotEmpty();
        again.get().unlock();
        assertThat(first().lock(config(Duration.ZERO))).isNotEmpty();
    }

    private LockConfiguration config(Duration lockAtLeastFor) {
        return new LockConfiguration(ClockProvider.now(), job, Duration.ofSeconds(30), lockAtLeastFor);
    }
}
