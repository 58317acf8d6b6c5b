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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class LockTemplateTests {

    static final RedisServer redis = RedisServers.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + redis.uri(), "distlock.defaults.wait-time=100ms");

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
    void whenCallbackRunsThenItRunsUnderTheLock() {
        runner.run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            LockClient client = context.getBean(LockClient.class);
            String result = template.execute("job", () -> {
                assertThat(client.getLock("job").isHeldByCurrentThread()).isTrue();
                return LockContext.current().name();
            });
            assertThat(result).isEqualTo("job");
            assertThat(client.getLock("job").isLocked()).isFalse();
        });
    }

    @Test
    void whenLockIsTakenThenExecuteThrowsAndTryExecuteReportsIt() throws Exception {
        RedisLock held = other.getLock("busy");
        long owner = RedisLock.newOwnerId();
        assertThat(held.tryLock(0, 30_000, TimeUnit.MILLISECONDS, owner)).isTrue();
        runner.run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            assertThatExceptionOfType(LockAcquisitionException.class)
                    .isThrownBy(() -> template.execute("busy", () -> "x"))
                    .withMessageContaining("'busy'");
            LockResult<String> result = template.tryExecute("busy", Duration.ZERO, () -> "x");
            assertThat(result.wasExecuted()).isFalse();
            assertThat(template.tryExecute("busy", Duration.ZERO, () -> {})).isFalse();
        });
        held.unlock(owner);
    }

    @Test
    void whenCallbackReturnsNullThenTheResultIsToldApartFromNotAcquired() {
        runner.run(context -> {
            LockResult<String> result =
                    context.getBean(LockTemplate.class).tryExecute("free", Duration.ZERO, () -> null);
            assertThat(result.wasExecuted()).isTrue();
            assertThat(result.getValue()).isNull();
        });
    }

    @Test
    void whenRunnableIsGivenOptionsThenItRunsHonouringThem() {
        runner.run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            LockClient client = context.getBean(LockClient.class);
            long[] ttl = new long[1];
            template.execute(
                    "leased",
                    LockOptions.of(LockType.REENTRANT)
                            .withLeaseTime(Duration.ofSeconds(5))
                            .withWaitTime(Duration.ofSeconds(1)),
                    () -> {
                        ttl[0] = client.getLock("leased").remainTimeToLive();
                    });
            assertThat(ttl[0]).isBetween(1L, 5_000L);
            assertThat(client.getLock("leased").isLocked()).isFalse();
        });
    }

    @Test
    void whenCallbackReentersTheSameLockThenItIsReentrant() {
        runner.run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            assertThat(template.execute("outer", () -> template.execute("outer", () -> "nested")))
                    .isEqualTo("nested");
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void whenCallbackThrowsThenLockIsReleased() {
        runner.run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            assertThatExceptionOfType(IllegalStateException.class)
                    .isThrownBy(() -> template.execute("throws", () -> {
                        throw new IllegalStateException("x");
                    }));
            assertThat(context.getBean(LockClient.class).getLock("throws").isLocked())
                    .isFalse();
        });
    }

    @Test
    void whenLeaseLostAndPolicyThrowThenLockLeaseExpiredException() {
        runner.withPropertyValues("distlock.lease-lost-policy=throw").run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            assertThatExceptionOfType(LockLeaseExpiredException.class)
                    .isThrownBy(() -> template.execute(
                            "short", LockOptions.DEFAULTS.withLeaseTime(Duration.ofMillis(100)), () -> {
                                sleep(400);
                                return "late";
                            }))
                    .withMessageContaining("'short'");
        });
    }

    @Test
    void whenMaxHoldReachedThenLockIsReleased() {
        runner.withPropertyValues("distlock.watchdog.max-hold=300ms").run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            LockClient client = context.getBean(LockClient.class);
            boolean[] heldAtEnd = new boolean[2];
            template.execute("hung", () -> {
                sleep(1_000);
                heldAtEnd[0] = client.getLock("hung").isLocked();
                heldAtEnd[1] = LockContext.current().isHeld();
            });
            assertThat(heldAtEnd[0]).as("released in Redis").isFalse();
            assertThat(heldAtEnd[1]).as("context reports the loss").isFalse();
        });
    }

    @Test
    void whenLeaseLostAndPolicyInterruptThenHoldingThreadIsInterrupted() {
        runner.withPropertyValues("distlock.lease-lost-policy=interrupt", "distlock.watchdog.max-hold=200ms")
                .run(context -> {
                    LockTemplate template = context.getBean(LockTemplate.class);
                    long start = System.nanoTime();
                    boolean interrupted = template.execute("interrupt-me", () -> {
                        try {
                            Thread.sleep(10_000);
                            return false;
                        } catch (InterruptedException ex) {
                            return true;
                        }
                    });
                    assertThat(interrupted).isTrue();
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
                    assertThat(context.getBean(LockClient.class)
                                    .getLock("interrupt-me")
                                    .isLocked())
                            .isFalse();
                });
    }

    @Test
    void whenLeaseLostThenMetricIsCounted() {
        runner.withBean(
                        io.micrometer.core.instrument.MeterRegistry.class,
                        io.micrometer.core.instrument.simple.SimpleMeterRegistry::new)
                .withConfiguration(
                        AutoConfigurations.of(dev.distlock.spring.autoconfigure.DistlockMetricsAutoConfiguration.class))
                .withPropertyValues("distlock.watchdog.max-hold=100ms")
                .run(context -> {
                    context.getBean(LockTemplate.class).execute("lost", () -> sleep(400));
                    var registry = context.getBean(io.micrometer.core.instrument.MeterRegistry.class);
                    assertThat(registry.get("distlock.lease.lost")
                                    .tag("lock.name", "lost")
                                    .counter()
                                    .count())
                            .isEqualTo(1.0);
                    assertThat(registry.get("distlock.acquire")
                                    .tag("outcome", "acquired")
                                    .timer()
                                    .count())
                            .isEqualTo(1);
                    assertThat(registry.get("distlock.active")
                                    .tag("lock.name", "lost")
                                    .gauge()
                                    .value())
                            .isZero();
                });
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
