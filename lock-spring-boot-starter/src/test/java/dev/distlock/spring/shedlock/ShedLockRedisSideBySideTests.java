package dev.distlock.spring.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockingTaskExecutor.TaskResult;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A rolling deploy from ShedLock's own Redis provider ({@code RedisLockProvider} of
 * {@code shedlock-provider-redis-spring}, the ShedLock version the starter is built with) to
 * {@link DistlockLockProvider#compatibleWithShedLockRedis}: both on one Redis server, as nodes of the
 * old and the new version, each skipping the other's runs of the same job.
 */
class ShedLockRedisSideBySideTests {

    private static final RedisServer redis = RedisServers.shared();
    private static final String ENVIRONMENT = "rolling";

    private static LettuceConnectionFactory connections;

    private LockClient client;
    private LockProvider oldNode;
    private LockProvider newNode;
    private ExecutorService pool;
    private String job;

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
        client = LockClient.create(redis.uri());
        oldNode = new RedisLockProvider(connections, ENVIRONMENT);
        newNode = DistlockLockProvider.compatibleWithShedLockRedis(client, ENVIRONMENT);
        pool = Executors.newFixedThreadPool(8);
        job = "job-" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        client.close();
    }

    private LockProvider node(String which) {
        return which.equals("old") ? oldNode : newNode;
    }

    private static LockConfiguration config(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
    }

    private static TaskResult<Boolean> execute(
            LockProvider node, LockConfiguration config, LockingTaskExecutor.TaskWithResult<Boolean> task) {
        try {
            return new DefaultLockingTaskExecutor(node).executeWithLock(task, config);
        } catch (Throwable ex) {
            throw new AssertionError(ex);
        }
    }

    private boolean runs(LockProvider node, String name) {
        return execute(node, config(name, Duration.ofSeconds(30), Duration.ZERO), () -> true)
                .wasExecuted();
    }

    @ParameterizedTest(name = "the {0} node runs the job")
    @ValueSource(strings = {"old", "new"})
    void whileOneVersionRunsTheJobThenTheOtherSkipsIt(String running) throws Exception {
        LockProvider runner = node(running);
        LockProvider other = node(running.equals("old") ? "new" : "old");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Future<TaskResult<Boolean>> run =
                pool.submit(() -> execute(runner, config(job, Duration.ofSeconds(30), Duration.ZERO), () -> {
                    started.countDown();
                    return finish.await(30, TimeUnit.SECONDS);
                }));
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(redis.command("EXISTS", "job-lock:" + ENVIRONMENT + ":" + job)
                        .trim())
                .isEqualTo("1");

        assertThat(runs(other, job)).as("the other version, while the job runs").isFalse();
        assertThat(runs(runner, job)).as("the same version, while the job runs").isFalse();
        finish.countDown();
        assertThat(run.get(30, TimeUnit.SECONDS).wasExecuted()).isTrue();

        assertThat(runs(other, job)).as("the other version, after the run").isTrue();
        assertThat(runs(runner, job)).isTrue();
    }

    @ParameterizedTest(name = "the {0} node runs the job")
    @ValueSource(strings = {"old", "new"})
    void whenOneVersionEndsARunBeforeLockAtLeastForThenTheOtherSkipsUntilItHasPassed(String running) {
        LockProvider runner = node(running);
        LockProvider other = node(running.equals("old") ? "new" : "old");
        Optional<SimpleLock> lock = runner.lock(config(job, Duration.ofSeconds(30), Duration.ofMillis(1500)));
        assertThat(lock).isNotEmpty();
        lock.get().unlock();
        assertThat(other.lock(config(job, Duration.ofSeconds(30), Duration.ZERO)))
                .as("before lockAtLeastFor has passed")
                .isEmpty();
        await().atMost(Duration.ofSeconds(10)).until(() -> runs(other, job));
    }

    @Test
    void whenADistlockRunOutlivesLockAtMostForThenItsUnlockLeavesShedLocksNextRunAlone() {
        // ShedLock's own provider deletes the key unconditionally unless built with safeUpdate(true);
        // the compatible provider always checks that the key still holds its own run's value.
        LockProvider late = newNode;
        LockProvider next = oldNode;
        Optional<SimpleLock> lapsed = late.lock(config(job, Duration.ofMillis(300), Duration.ZERO));
        assertThat(lapsed).isNotEmpty();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> redis.command("EXISTS", "job-lock:" + ENVIRONMENT + ":" + job)
                        .trim()
                        .equals("0"));
        Optional<SimpleLock> current = next.lock(config(job, Duration.ofSeconds(30), Duration.ZERO));
        assertThat(current).isNotEmpty();
        lapsed.get().unlock();
        assertThat(late.lock(config(job, Duration.ofSeconds(30), Duration.ZERO)))
                .as("the lapsed run's unlock must not free the next run's lock")
                .isEmpty();
        current.get().unlock();
    }

    @Test
    void whenTheDistlockNodeExtendsItsRunThenShedLocksNodeStillSkipsIt() throws Exception {
        Optional<SimpleLock> lock = newNode.lock(config(job, Duration.ofMillis(800), Duration.ZERO));
        assertThat(lock).isNotEmpty();
        Optional<SimpleLock> extended = lock.get().extend(Duration.ofSeconds(30), Duration.ZERO);
        assertThat(extended).isNotEmpty();
        Thread.sleep(1200);
        assertThat(runs(oldNode, job)).isFalse();
        extended.get().unlock();
        assertThat(runs(oldNode, job)).isTrue();
    }

    @Test
    void whenNodesOfBothVersionsRunJobsConcurrentlyThenNoRunOverlapsAnother() throws Exception {
        int[] counter = new int[1];
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            LockProvider node = t % 2 == 0 ? oldNode : newNode;
            workers.add(pool.submit(() -> {
                int done = 0;
                while (done < 20) {
                    TaskResult<Boolean> result =
                            execute(node, config(job, Duration.ofSeconds(30), Duration.ZERO), () -> {
                                int seen = counter[0];
                                Thread.sleep(1);
                                counter[0] = seen + 1;
                                return true;
                            });
                    if (result.wasExecuted()) {
                        done++;
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(120, TimeUnit.SECONDS);
        }
        assertThat(counter[0]).isEqualTo(6 * 20);
    }
}
