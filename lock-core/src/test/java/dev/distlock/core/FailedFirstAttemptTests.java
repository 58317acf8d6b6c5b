package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A waiting call whose first attempt fails without a reply (Redis frozen past the command timeout)
 * throws; the attempt still runs once Redis resumes, and must not leave the caller queued (fair
 * lock) or claiming (write lock), which would keep others off a free lock.
 */
@Tag("fault")
class FailedFirstAttemptTests {

    private RedisServer redis;
    private LockClient holder;
    private LockClient waiter;
    private LockClient other;

    @BeforeEach
    void setUp() {
        redis = RedisServers.start();
        holder = LockClient.create(redis.uri());
        // Waiters keep their place for 20 s: long enough that a leftover entry is unmistakable.
        waiter = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .commandTimeout(Duration.ofMillis(500))
                .fairLockWaitTimeout(Duration.ofSeconds(20))
                .build());
        other = LockClient.create(redis.uri());
    }

    @AfterEach
    void tearDown() {
        try {
            redis.resume();
            waiter.close();
            holder.close();
            other.close();
        } finally {
            redis.stop();
        }
    }

    @Test
    void whenTheFirstFairAttemptTimesOutThenTheCallerDoesNotStayQueued() throws Exception {
        long owner = RedisLock.newOwnerId();
        assertThat(holder.getFairLock("first-fair").tryLock(0, 60, TimeUnit.SECONDS, owner))
                .isTrue();
        waiter.ping();
        redis.pause();
        assertThatThrownBy(() -> waiter.getFairLock("first-fair").tryLock(10, 60, TimeUnit.SECONDS))
                .isInstanceOf(LockException.class);
        redis.resume();
        // Runs after what the frozen server had buffered from this client: the timed-out attempt.
        waiter.ping();
        holder.getFairLock("first-fair").unlock(owner);
        // A leftover entry would stay for the 20 s waiter timeout; the withdrawal lands within moments.
        await().atMost(Duration.ofSeconds(3))
                .untilAsserted(() -> assertThat(other.inspect("first-fair").queueLength())
                        .as("fair queue after the failed call")
                        .isZero());
        assertThat(other.getFairLock("first-fair").tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                .as("a free fair lock nobody waits for")
                .isTrue();
    }

    @Test
    void whenTheFirstWriteAttemptTimesOutThenItsClaimDoesNotKeepReadersOut() throws Exception {
        long owner = RedisLock.newOwnerId();
        assertThat(holder.getReadWriteLock("first-rw").readLock().tryLock(0, 60, TimeUnit.SECONDS, owner))
                .isTrue();
        waiter.ping();
        redis.pause();
        assertThatThrownBy(() -> waiter.getReadWriteLock("first-rw").writeLock().tryLock(10, 60, TimeUnit.SECONDS))
                .isInstanceOf(LockException.class);
        redis.resume();
        waiter.ping();
        RedisLock reader = other.getReadWriteLock("first-rw").readLock();
        await().atMost(Duration.ofSeconds(3))
                .untilAsserted(() -> assertThat(reader.tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                        .as("a new reader, with no writer waiting")
                        .isTrue());
    }
}
