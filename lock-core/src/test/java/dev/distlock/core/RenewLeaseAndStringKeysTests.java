package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link RedisLock#renewLease} and {@link StringLockKeys}, the two primitives the Spring bridges build on. */
class RenewLeaseAndStringKeysTests {

    private final RedisServer redis = RedisServers.shared();
    private LockClient client;
    private LockClient other;
    private String name;

    @BeforeEach
    void setUp() {
        client = LockClient.create(redis.uri());
        other = LockClient.create(redis.uri());
        name = "renew:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    @Test
    void whenHolderRenewsItsLeaseThenTheKeyOutlivesTheFirstLeaseAndAReleaseAfterNestedUnlockKeepsIt() throws Exception {
        RedisLock lock = client.getLock(name);
        long owner = Thread.currentThread().getId();
        lock.lock(500, TimeUnit.MILLISECONDS);
        lock.lock(500, TimeUnit.MILLISECONDS);
        assertThat(lock.renewLease(5, TimeUnit.SECONDS, owner)).isTrue();
        assertThat(lock.remainTimeToLive()).isGreaterThan(4_000);
        lock.unlock();
        // The nested unlock keeps the renewed lease, not what was left of the first one.
        assertThat(lock.remainTimeToLive()).isGreaterThan(3_000);
        Thread.sleep(700);
        assertThat(other.getLock(name).tryLock(0, 1, TimeUnit.SECONDS)).isFalse();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void whenOwnerDoesNotHoldTheLockThenRenewLeaseReturnsFalseAndTakesNothing() {
        RedisLock lock = client.getLock(name);
        assertThat(lock.renewLease(5, TimeUnit.SECONDS, Thread.currentThread().getId()))
                .isFalse();
        assertThat(lock.isLocked()).isFalse();
        assertThatThrownBy(() -> lock.renewLease(-1, TimeUnit.SECONDS, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'leaseTime'");
        assertThatThrownBy(() -> client.getReadWriteLock(name).readLock().renewLease(1, TimeUnit.SECONDS, 1))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void whenStringKeyIsSetThenOnlyItsHolderExtendsOrDeletesIt() {
        StringLockKeys keys = client.stringLockKeys();
        String key = "job-lock:test:" + name;
        assertThat(keys.trySet(key, "a", Duration.ofSeconds(5))).isTrue();
        assertThat(other.stringLockKeys().trySet(key, "b", Duration.ofSeconds(5)))
                .isFalse();
        assertThat(keys.expireIfHeld(key, "b", Duration.ofSeconds(60))).isFalse();
        assertThat(keys.deleteIfHeld(key, "b")).isFalse();
        assertThat(keys.expireIfHeld(key, "a", Duration.ofSeconds(60))).isTrue();
        assertThat(Long.parseLong(redis.command("PTTL", key).trim())).isGreaterThan(50_000);
        assertThat(keys.remainingTimeToLive(key)).isBetween(50_000L, 60_000L);
        assertThat(keys.deleteIfHeld(key, "a")).isTrue();
        assertThat(redis.command("EXISTS", key).trim()).isEqualTo("0");
        assertThat(keys.remainingTimeToLive(key)).isEqualTo(-2);
        assertThatThrownBy(() -> keys.trySet(" ", "a", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'key'");
        assertThatThrownBy(() -> keys.trySet(key, "a", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ttl'");
    }
}
