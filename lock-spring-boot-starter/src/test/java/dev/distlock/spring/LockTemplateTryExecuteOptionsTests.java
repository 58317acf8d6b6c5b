package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@link LockTemplate#tryExecute(String, LockOptions, Supplier)}: a try-lock of every kind, no exception to catch. */
class LockTemplateTryExecuteOptionsTests {

    static final RedisServer redis = RedisServers.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + redis.uri(), "distlock.defaults.wait-time=5s");

    LockClient other;

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
        other = LockClient.create(redis.uri());
    }

    @AfterEach
    void tearDown() {
        other.close();
    }

    @Test
    void whenAnotherClientWritesThenReadAndWriteTriesReportNotAcquiredWithinTheirWait() throws Exception {
        RedisLock writer = other.getReadWriteLock("stock").writeLock();
        long owner = RedisLock.newOwnerId();
        assertThat(writer.tryLock(0, 30_000, TimeUnit.MILLISECONDS, owner)).isTrue();
        runner.run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            long start = System.nanoTime();
            LockResult<String> read = template.tryExecute(
                    "stock", LockOptions.of(LockType.READ).withWaitTime(Duration.ofMillis(200)), () -> "read");
            assertThat(read.wasExecuted()).isFalse();
            // The options' wait, not the 5 s default.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
            assertThat(template.tryExecute(
                            "stock", LockOptions.of(LockType.WRITE).withWaitTime(Duration.ZERO), () -> {}))
                    .isFalse();
        });
        writer.unlock(owner);
    }

    @Test
    void whenAnotherClientReadsThenAReadRunsAndAWriteDoesNot() throws Exception {
        RedisLock reader = other.getReadWriteLock("catalog").readLock();
        long owner = RedisLock.newOwnerId();
        assertThat(reader.tryLock(0, 30_000, TimeUnit.MILLISECONDS, owner)).isTrue();
        runner.run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            LockResult<LockType> read = template.tryExecute(
                    "catalog", LockOptions.of(LockType.READ).withWaitTime(Duration.ZERO), () -> LockContext.current()
                            .type());
            assertThat(read.wasExecuted()).isTrue();
            assertThat(read.getValue()).isEqualTo(LockType.READ);
            LockResult<String> write = template.tryExecute(
                    "catalog", LockOptions.of(LockType.WRITE).withWaitTime(Duration.ZERO), () -> "write");
            assertThat(write.wasExecuted()).isFalse();
        });
        reader.unlock(owner);
    }

    @Test
    void whenAFairLockIsHeldElsewhereThenTheFairTryReportsNotAcquiredAndRunsOnceFree() throws Exception {
        RedisLock fair = other.getFairLock("queue");
        long owner = RedisLock.newOwnerId();
        assertThat(fair.tryLock(0, 30_000, TimeUnit.MILLISECONDS, owner)).isTrue();
        runner.run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            LockOptions options = LockOptions.of(LockType.FAIR).withWaitTime(Duration.ofMillis(100));
            assertThat(template.tryExecute("queue", options, () -> "x").wasExecuted())
                    .isFalse();
            fair.unlock(owner);
            LockResult<LockType> result = template.tryExecute(
                    "queue", options, () -> LockContext.current().type());
            assertThat(result.wasExecuted()).isTrue();
            assertThat(result.getValue()).isEqualTo(LockType.FAIR);
            assertThat(context.getBean(LockClient.class).getFairLock("queue").isLocked())
                    .isFalse();
        });
    }

    @Test
    void whenTheOptionsGiveALeaseThenTheHoldHasIt() {
        runner.run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            LockClient client = context.getBean(LockClient.class);
            LockResult<Long> ttl = template.tryExecute(
                    "billing",
                    "billing:42",
                    LockOptions.of(LockType.WRITE).withLeaseTime(Duration.ofSeconds(4)),
                    () -> client.getReadWriteLock("billing:42").writeLock().remainTimeToLive());
            assertThat(ttl.getValue()).isBetween(1L, 4_000L);
            assertThat(client.getReadWriteLock("billing:42").writeLock().isLocked())
                    .isFalse();
        });
    }

    @Test
    void whenTheOptionsAreNullThenTheErrorNamesThem() {
        runner.run(context -> assertThatExceptionOfType(NullPointerException.class)
                .isThrownBy(() -> context.getBean(LockTemplate.class).tryExecute("x", (LockOptions) null, () -> "x"))
                .withMessageContaining("'options'"));
    }

    @Test
    void whenATemplateImplementsOnlyExecuteThenTheDefaultTellsNotAcquiredFromTheCallbacksOwnFailure() {
        LockTemplate busy = new ExecuteOnlyTemplate(false);
        assertThat(busy.tryExecute("k", LockOptions.of(LockType.READ), () -> "x")
                        .wasExecuted())
                .isFalse();
        LockTemplate free = new ExecuteOnlyTemplate(true);
        assertThat(free.tryExecute("k", LockOptions.of(LockType.READ), () -> "x")
                        .getValue())
                .isEqualTo("x");
        // An inner lock that fails inside the callback is the callback's failure, not "not acquired".
        assertThatExceptionOfType(LockAcquisitionException.class)
                .isThrownBy(() -> free.tryExecute("k", LockOptions.DEFAULTS, () -> {
                    throw new LockAcquisitionException("inner", Duration.ZERO, null);
                }));
    }

    /** A third-party template written before the options form existed. */
    private record ExecuteOnlyTemplate(boolean acquires) implements LockTemplate {

        @Override
        public <T> @Nullable T execute(String key, LockOptions options, Supplier<T> callback) {
            if (!acquires) {
                throw new LockAcquisitionException(key, Duration.ZERO, null);
            }
            return callback.get();
        }

        @Override
        public <T> LockResult<T> tryExecute(String key, Duration waitTime, Supplier<T> callback) {
            throw new UnsupportedOperationException();
        }
    }
}
