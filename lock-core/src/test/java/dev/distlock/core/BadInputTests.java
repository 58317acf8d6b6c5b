package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Odd names, durations and call sequences through the public API: clear errors, no leaked locks. */
class BadInputTests {

    private final LockClient client = LockClient.create(RedisServers.shared().uri());
    private final ExecutorService other = Executors.newSingleThreadExecutor();

    @AfterEach
    void tearDown() {
        other.shutdownNow();
        client.close();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"with{braces}", "{only-tag}", "line\nbreak", "tab\tand space", "ünïcødé-锁-🔒", "}{", "a:b:c"})
    void shouldLockAndWakeOnUnusualNames(String unusual) throws Exception {
        String name = unusual + ":" + UUID.randomUUID();
        RedisLock lock = client.getLock(name);
        lock.lock(30, TimeUnit.SECONDS);
        assertThat(other.submit(() -> client.getLock(name).tryLock()).get()).isFalse();
        var waiter = other.submit(() -> client.getLock(name).tryLock(10, 30, TimeUnit.SECONDS));
        org.awaitility.Awaitility.await().pollDelay(Duration.ofMillis(200)).until(() -> !waiter.isDone());
        lock.unlock();
        assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(RedisServers.shared().command("HLEN", name)).isEqualTo("1");
    }

    @Test
    void shouldHandleAOneMegabyteName() throws Exception {
        String name = "x".repeat(1 << 20);
        RedisLock lock = client.getLock(name);
        assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void shouldRejectNullsAndBlanksNamingTheArgument() {
        assertThatNullPointerException().isThrownBy(() -> client.getLock(null)).withMessage("'name' must not be null");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> client.getFencedLock(""))
                .withMessage("'name' must not be blank");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> client.getLock("\n\t "))
                .withMessageContaining("'name'");
        assertThatNullPointerException()
                .isThrownBy(() -> LockClient.create((String) null))
                .withMessageContaining("'uri'");
        assertThatNullPointerException()
                .isThrownBy(() -> LockClient.create((LockClientOptions) null))
                .withMessageContaining("'options'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockClientOptions.builder().watchdogTimeout(Duration.ZERO))
                .withMessageContaining("'watchdogTimeout'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockClientOptions.builder().commandTimeout(Duration.ofSeconds(-1)))
                .withMessageContaining("'commandTimeout'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockClientOptions.builder().reconnectDelay(Duration.ZERO, Duration.ofSeconds(1)))
                .withMessageContaining("'reconnectDelay min'");
        assertThatIllegalArgumentException()
                .isThrownBy(
                        () -> LockClientOptions.builder().reconnectDelay(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .withMessageContaining("'reconnectDelay max'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockClient.create("http://localhost"))
                .withMessageContaining("http://localhost");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockClient.create("redis://app:50%off/now@localhost"))
                .withMessageContaining("redis://***@localhost")
                .satisfies(ex -> assertThat(ex.getMessage()).doesNotContain("50%off"));
    }

    @Test
    void shouldRejectNegativeAndEnormousDurations() throws Exception {
        RedisLock lock = client.getLock("durations:" + UUID.randomUUID());
        // A negative wait is Redisson's "one attempt", not an error: the free lock is taken at once.
        assertThat(lock.tryLock(Long.MIN_VALUE, 1, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lock.tryLock(1, Long.MIN_VALUE, TimeUnit.SECONDS))
                .withMessageContaining("'leaseTime'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> lock.tryLock(1, Long.MAX_VALUE, TimeUnit.NANOSECONDS))
                .withMessageContaining("'leaseTime'");
        // An enormous wait is fine: it is capped, and an uncontended lock is taken at once.
        assertThat(lock.tryLock(Long.MAX_VALUE, 10, TimeUnit.DAYS)).isTrue();
        assertThat(lock.remainTimeToLive()).isGreaterThan(TimeUnit.DAYS.toMillis(9));
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void shouldRejectASecondUnlock() throws Exception {
        RedisLock lock = client.getLock("twice:" + UUID.randomUUID());
        lock.lock(30, TimeUnit.SECONDS);
        lock.unlock();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(lock.getName())
                .hasMessageContaining("not held");
        assertThat(lock.isLocked()).isFalse();
    }
}
