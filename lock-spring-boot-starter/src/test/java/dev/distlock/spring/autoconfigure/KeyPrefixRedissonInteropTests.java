package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServers;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A service migrating from Redisson with {@code distlock.key-prefix: "inv:"}: the auto-configured
 * client's lock {@code legacy:S1} is the key {@code inv:legacy:S1}. A Redisson client whose
 * {@code NameMapper} prepends {@code inv:} uses the same key and channel, so the two exclude each other
 * and wake each other's waiters; one without it locks {@code legacy:S1}, both hold "the" lock at once,
 * and startup warns. Real Redis, real Redisson.
 */
@ExtendWith(OutputCaptureExtension.class)
class KeyPrefixRedissonInteropTests {

    private static final String NAME = "legacy:S1";

    private static final String WARNING = "Distlock's key prefix 'inv:'";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + RedisServers.shared().uri(), "distlock.key-prefix=inv:");

    /** Redisson's locks belong to a thread: take and release them on this one. */
    private final ExecutorService redissonThread = Executors.newSingleThreadExecutor();

    @AfterEach
    void tearDown() throws InterruptedException {
        redissonThread.shutdownNow();
        redissonThread.awaitTermination(5, TimeUnit.SECONDS);
    }

    private <T> T asRedisson(Callable<T> call) throws Exception {
        return redissonThread.submit(call).get(30, TimeUnit.SECONDS);
    }

    @Test
    void whenRedissonMapsNamesWithThePrefixThenEachExcludesTheOtherAndNothingIsReported(CapturedOutput output) {
        runner.withBean(
                        "redisson",
                        RedissonClient.class,
                        () -> RedissonKeyPrefixWarningTests.redisson("inv:"),
                        bean -> bean.setDestroyMethodName("shutdown"))
                .run(context -> {
                    RedisLock lock = context.getBean(LockClient.class).getLock(NAME);
                    RLock legacy = context.getBean(RedissonClient.class).getLock(NAME);
                    try {
                        assertThat(asRedisson(() -> legacy.tryLock(0, 30, TimeUnit.SECONDS)))
                                .isTrue();
                        assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS))
                                .as("Distlock while Redisson holds")
                                .isFalse();
                        assertThat(lock.isLocked()).isTrue();

                        // Redisson's release wakes the Distlock waiter (same key, same channel).
                        Future<?> release = redissonThread.submit(() -> {
                            Thread.sleep(200);
                            legacy.unlock();
                            return null;
                        });
                        long start = System.nanoTime();
                        assertThat(lock.tryLock(10, 30, TimeUnit.SECONDS)).isTrue();
                        release.get(30, TimeUnit.SECONDS);
                        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start))
                                .isLessThan(5);

                        assertThat(asRedisson(() -> legacy.tryLock(0, 30, TimeUnit.SECONDS)))
                                .as("Redisson while Distlock holds")
                                .isFalse();
                        Future<Boolean> waiting = redissonThread.submit(() -> legacy.tryLock(10, 30, TimeUnit.SECONDS));
                        Thread.sleep(200);
                        lock.unlock();
                        assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
                        asRedisson(() -> {
                            legacy.unlock();
                            return null;
                        });
                    } finally {
                        lock.forceUnlock();
                    }
                });
        assertThat(output.getOut()).doesNotContain(WARNING);
    }

    @Test
    void whenRedissonDoesNotMapNamesThenBothHoldTheNameAtOnceAndStartupWarns(CapturedOutput output) {
        runner.withBean(
                        "redisson",
                        RedissonClient.class,
                        () -> RedissonKeyPrefixWarningTests.redisson(null),
                        bean -> bean.setDestroyMethodName("shutdown"))
                .run(context -> {
                    RedisLock lock = context.getBean(LockClient.class).getLock(NAME);
                    RLock legacy = context.getBean(RedissonClient.class).getLock(NAME);
                    try {
                        assertThat(asRedisson(() -> legacy.tryLock(0, 30, TimeUnit.SECONDS)))
                                .isTrue();
                        assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS))
                                .as("Distlock's inv:legacy:S1 is another key than Redisson's legacy:S1")
                                .isTrue();
                        lock.unlock();
                        asRedisson(() -> {
                            legacy.unlock();
                            return null;
                        });
                    } finally {
                        lock.forceUnlock();
                        legacy.forceUnlock();
                    }
                });
        assertThat(output.getOut())
                .containsOnlyOnce(WARNING)
                .contains("RedissonClient bean 'redisson' does not map names with that prefix");
    }
}
