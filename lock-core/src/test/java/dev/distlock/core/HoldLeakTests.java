package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Holds that must end: after a failed nested unlock, after a nested watchdog hold, after a lost acquire reply. */
@Tag("fault")
class HoldLeakTests {

    private RedisServer redis;
    private LockClient client;

    @BeforeEach
    void setUp() {
        redis = RedisServers.start();
        client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .commandTimeout(Duration.ofSeconds(1))
                .watchdogTimeout(Duration.ofSeconds(3))
                .build());
    }

    @AfterEach
    void tearDown() {
        client.close();
        redis.stop();
    }

    @Test
    void whenANestedUnlockFailsThenTheHoldRedisStillCountsIsNoLongerRenewed() {
        String name = "failed-nested-unlock:" + UUID.randomUUID();
        RedisLock lock = client.getLock(name);
        lock.lock();
        lock.lock();
        redis.command("ACL", "SETUSER", "default", "-evalsha", "-eval");
        try {
            assertThatThrownBy(lock::unlock).isInstanceOf(LockException.class);
        } finally {
            redis.command("ACL", "SETUSER", "default", "+evalsha", "+eval");
        }
        lock.unlock();
        // Redis still counts the hold whose unlock failed. The client does not release it on the strength
        // of its own count (another task of the owner may have a grant on its way), but no longer renews
        // it: it expires within the watchdog lease, not renewed forever.
        assertThat(client.heldLocks()).isEmpty();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(redis.command("EXISTS", name))
                .as("expired, not renewed forever with one hold left")
                .isEqualTo("0"));
    }

    @Test
    void whenANestedUnlockEndsAnExplicitLeaseThenTheWatchdogHoldLeftIsRenewed() {
        String name = "sticky-watchdog:" + UUID.randomUUID();
        RedisLock lock = client.getLock(name);
        lock.lock(3, TimeUnit.SECONDS);
        lock.lock();
        lock.unlock();
        // An unlock does not say which acquisition it ends: it ends the one that expires first (the 3 s one)
        // and the watchdog acquisition left is renewed, past the 3 s, until the last unlock.
        await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10)).until(() -> "1"
                .equals(redis.command("EXISTS", name)));
        assertThat(client.heldLocks()).singleElement().satisfies(held -> assertThat(held.watchdog())
                .isTrue());
        lock.unlock();
        assertThat(redis.command("EXISTS", name)).isEqualTo("0");
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void whenAnAcquireReplyIsLostAndTheCallerGivesUpThenTheLateHoldIsReleased() {
        String name = "late-acquire:" + UUID.randomUUID();
        long owner = RedisLock.newOwnerId();
        // Load the scripts first: an EVALSHA that finds no script runs nothing, and is not resent after a timeout.
        RedisLock warmUp = client.getLock(name + ":warm-up");
        warmUp.lock();
        warmUp.unlock();
        // Redis answers nothing for 3 s: the acquire times out after 1 s but runs when the pause ends.
        redis.command("CLIENT", "PAUSE", "3000");
        assertThatThrownBy(() -> client.getLock(name).tryLock(0, 30, TimeUnit.SECONDS, owner))
                .isInstanceOf(LockException.class);
        // Once Redis runs it, nobody will unlock the hold it took: it must not block the lock for 30 s.
        // isLocked() goes down the same connection, so it runs after the late acquire.
        RedisLock lock = client.getLock(name);
        await().atMost(Duration.ofSeconds(8)).ignoreExceptions().until(() -> !lock.isLocked());
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void whenRefusedOwnersGiveUpThenNothingIsReleasedOnTheirBehalf() throws Exception {
        String name = "refused:" + UUID.randomUUID();
        long holder = RedisLock.newOwnerId();
        assertThat(client.getLock(name).tryLock(0, 30, TimeUnit.SECONDS, holder))
                .isTrue();
        for (int i = 0; i < 20; i++) {
            long wait = i % 2 == 0 ? 0 : 50;
            assertThat(client.getLock(name).tryLock(wait, 30_000, TimeUnit.MILLISECONDS, RedisLock.newOwnerId()))
                    .isFalse();
        }
        // Every refusal reached its caller: no clean-up release (each would leave an unlock latch).
        assertThat(redis.command("KEYS", "redisson_unlock_latch:*").lines().filter(k -> !k.isEmpty()))
                .isEmpty();
        assertThat(client.engine().uncertainAcquisitions().isEmpty()).isTrue();
        client.getLock(name).unlock(holder);
    }
}
