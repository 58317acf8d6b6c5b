package dev.distlock.core.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.test.RedisServers;

/** A fair lock release retried with the same request id replays its first outcome. */
class FairLockUnlockLatchTests {

    private final LockEngine engine = new LockEngine(LockClientOptions.builder().uri(RedisServers.shared().uri()).build());

    @AfterEach
    void tearDown() {
        engine.close();
    }

    @Test
    void shouldNotReleaseTwiceForOneRequest() throws Exception {
        FairRedisLock lock = new FairRedisLock(engine, "fair-latch:" + UUID.randomUUID());
        long owner = Thread.currentThread().getId();
        lock.lock(30, TimeUnit.SECONDS);
        lock.lock(30, TimeUnit.SECONDS);
        assertThat(lock.release(30_000, owner, "request-1").get()).isZero();
        assertThat(lock.release(30_000, owner, "request-1").get()).as("replayed").isZero();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        assertThat(lock.release(30_000, owner, "request-2").get()).isEqualTo(1);
        assertThat(lock.release(30_000, owner, "request-2").get()).as("replayed, not 'not held'").isEqualTo(1);
        assertThat(lock.release(30_000, owner, "request-3").get()).as("a new request sees the truth").isNull();
    }
}
