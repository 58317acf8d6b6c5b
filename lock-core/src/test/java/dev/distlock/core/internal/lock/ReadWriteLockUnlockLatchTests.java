package dev.distlock.core.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.test.RedisServers;

/** Read and write releases retried with the same request id replay their first outcome. */
class ReadWriteLockUnlockLatchTests {

    private final LockEngine engine = new LockEngine(LockClientOptions.builder().uri(RedisServers.shared().uri()).build());

    @AfterEach
    void tearDown() {
        engine.close();
    }

    @Test
    void shouldNotReleaseAReadHoldTwiceForOneRequest() throws Exception {
        RedisReadLock lock = new RedisReadLock(engine, "read-latch:" + UUID.randomUUID());
        long owner = Thread.currentThread().getId();
        lock.lock(30, TimeUnit.SECONDS);
        lock.lock(30, TimeUnit.SECONDS);
        assertThat(lock.release(30_000, owner, "request-1").get()).isZero();
        assertThat(lock.release(30_000, owner, "request-1").get()).as("replayed").isZero();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        assertThat(lock.release(30_000, owner, "request-2").get()).isEqualTo(1);
        assertThat(lock.release(30_000, owner, "request-2").get()).as("replayed").isEqualTo(1);
        assertThat(lock.release(30_000, owner, "request-3").get()).isNull();
    }

    @Test
    void shouldNotReleaseAWriteHoldTwiceForOneRequest() throws Exception {
        RedisWriteLock lock = new RedisWriteLock(engine, "write-latch:" + UUID.randomUUID());
        long owner = Thread.currentThread().getId();
        lock.lock(30, TimeUnit.SECONDS);
        lock.lock(30, TimeUnit.SECONDS);
        assertThat(lock.release(30_000, owner, "request-1").get()).isZero();
        assertThat(lock.release(30_000, owner, "request-1").get()).as("replayed").isZero();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        assertThat(lock.release(30_000, owner, "request-2").get()).isEqualTo(1);
        assertThat(lock.release(30_000, owner, "request-2").get()).as("replayed").isEqualTo(1);
        assertThat(lock.release(30_000, owner, "request-3").get()).isNull();
    }
}
