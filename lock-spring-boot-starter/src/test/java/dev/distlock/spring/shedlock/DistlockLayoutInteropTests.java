package dev.distlock.spring.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockTemplate;
import dev.distlock.spring.OnFailure;
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockShedLockAutoConfiguration;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The auto-configured {@link DistlockLockProvider} in Distlock's layout: a {@code @SchedulerLock}
 * job's lock is the Distlock lock named after the job, so it excludes {@code @DistributedLock},
 * {@link LockTemplate} and Redisson code on that name, both ways.
 */
class DistlockLayoutInteropTests {

    private static final RedisServer redis = RedisServers.shared();

    private final String job = "job-" + UUID.randomUUID();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistlockAutoConfiguration.class,
                    DistlockAspectAutoConfiguration.class,
                    DistlockShedLockAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + redis.uri(), "interop.job=" + job)
            .withBean(SameNameService.class);

    private RedissonClient redisson;
    private ExecutorService pool;
    /** Redisson's locks belong to a thread: take and release them on this one. */
    private ExecutorService redissonThread;

    @BeforeEach
    void setUp() {
        Config config = new Config();
        config.useSingleServer()
                .setAddress(redis.uri())
                .setConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionMinimumIdleSize(1);
        redisson = Redisson.create(config);
        pool = Executors.newFixedThreadPool(2);
        redissonThread = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        redissonThread.shutdownNow();
        redisson.shutdown();
    }

    private <T> T onAnotherThread(Callable<T> call) throws Exception {
        return pool.submit(call).get(30, TimeUnit.SECONDS);
    }

    private <T> T asRedisson(Callable<T> call) throws Exception {
        return redissonThread.submit(call).get(30, TimeUnit.SECONDS);
    }

    private LockConfiguration config() {
        return new LockConfiguration(ClockProvider.now(), job, Duration.ofSeconds(30), Duration.ZERO);
    }

    @Test
    void whenAJobHoldsItsLockThenDistributedLockLockTemplateAndRedissonAreExcluded() {
        runner.run(context -> {
            assertThat(context).getBean(LockProvider.class).isInstanceOf(DistlockLockProvider.class);
            Optional<SimpleLock> run = context.getBean(LockProvider.class).lock(config());
            assertThat(run).isNotEmpty();

            assertThat(context.getBean(SameNameService.class).runs())
                    .as("@DistributedLock")
                    .isNull();
            assertThat(onAnotherThread(() -> context.getBean(LockTemplate.class)
                            .tryExecute(job, Duration.ZERO, () -> true)
                            .wasExecuted()))
                    .as("LockTemplate")
                    .isFalse();
            assertThat(asRedisson(() -> redisson.getLock(job).tryLock()))
                    .as("Redisson")
                    .isFalse();

            run.get().unlock();
            assertThat(context.getBean(SameNameService.class).runs()).isTrue();
        });
    }

    @Test
    void whenDistributedLockOrLockTemplateOrRedissonHoldsTheNameThenTheJobIsSkipped() {
        runner.run(context -> {
            LockProvider provider = context.getBean(LockProvider.class);
            SameNameService service = context.getBean(SameNameService.class);

            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch leave = new CountDownLatch(1);
            Future<@Nullable Boolean> annotated = pool.submit(() -> service.runsUntil(inside, leave));
            assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(provider.lock(config()))
                    .as("while @DistributedLock runs")
                    .isEmpty();
            leave.countDown();
            assertThat(annotated.get(30, TimeUnit.SECONDS)).isTrue();

            CountDownLatch templateInside = new CountDownLatch(1);
            CountDownLatch templateLeave = new CountDownLatch(1);
            Future<?> template =
                    pool.submit(() -> context.getBean(LockTemplate.class).execute(job, () -> {
                        templateInside.countDown();
                        await(templateLeave);
                    }));
            assertThat(templateInside.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(provider.lock(config())).as("while LockTemplate runs").isEmpty();
            templateLeave.countDown();
            template.get(30, TimeUnit.SECONDS);

            RLock theirs = redisson.getLock(job);
            assertThat(asRedisson(() -> theirs.tryLock(0, 30, TimeUnit.SECONDS)))
                    .isTrue();
            assertThat(provider.lock(config())).as("while Redisson holds it").isEmpty();
            asRedisson(() -> {
                theirs.unlock();
                return null;
            });

            Optional<SimpleLock> run = provider.lock(config());
            assertThat(run).isNotEmpty();
            run.get().unlock();
            try (LockClient probe = LockClient.create(redis.uri())) {
                assertThat(probe.getLock(job).isLocked()).isFalse();
            }
        });
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Application code on the job's lock name. */
    static class SameNameService {

        /** @return {@code true}, or {@code null} when the lock is taken */
        @DistributedLock(name = "${interop.job}", waitTime = "0", onFailure = OnFailure.SKIP)
        public @Nullable Boolean runs() {
            return true;
        }

        /** Holds the lock until told to leave. */
        @DistributedLock(name = "${interop.job}", waitTime = "0", onFailure = OnFailure.SKIP)
        public @Nullable Boolean runsUntil(CountDownLatch inside, CountDownLatch leave) throws InterruptedException {
            inside.countDown();
            return leave.await(30, TimeUnit.SECONDS);
        }
    }
}
