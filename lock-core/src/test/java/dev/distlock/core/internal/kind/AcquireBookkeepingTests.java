package dev.distlock.core.internal.kind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.acquire.Attempt;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** What the engine remembers about acquisitions ends with them, and a reply nobody waits for changes nothing. */
@Tag("fault")
class AcquireBookkeepingTests {

    private RedisServer redis;
    private LockEngine engine;

    @BeforeEach
    void setUp() {
        redis = RedisServers.start();
    }

    @AfterEach
    void tearDown() {
        if (engine != null) {
            engine.close();
        }
        redis.stop();
    }

    private LockEngine engine(Duration commandTimeout) {
        engine = new LockEngine(LockClientOptions.builder()
                .uri(redis.uri())
                .commandTimeout(commandTimeout)
                .watchdogTimeout(Duration.ofSeconds(3))
                .build());
        return engine;
    }

    @Test
    void whenOneShotOwnersGiveUpDuringAnOutageThenNoUncertainAcquisitionIsKept() throws Exception {
        LockEngine engine = engine(Duration.ofMillis(500));
        ReentrantRedisLock lock = new ReentrantRedisLock(engine, "outage:" + UUID.randomUUID());
        assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                .isTrue();
        redis.pause();
        try {
            for (int i = 0; i < 20; i++) {
                long owner = RedisLock.newOwnerId();
                long wait = i % 2 == 0 ? 0 : 300;
                assertThatThrownBy(() -> lock.tryLock(wait, 1500, TimeUnit.MILLISECONDS, owner))
                        .isInstanceOf(LockException.class);
            }
        } finally {
            redis.resume();
        }
        await().atMost(Duration.ofSeconds(15))
                .until(() -> engine.uncertainAcquisitions().isEmpty());
    }

    @Test
    void whenNobodyAsksForAFencingTokenThenItIsForgotten() throws Exception {
        LockEngine engine = engine(Duration.ofSeconds(5));
        FencedRedisLock lock = new FencedRedisLock(engine, "tokens:" + UUID.randomUUID());
        for (int i = 0; i < 20; i++) {
            long owner = RedisLock.newOwnerId();
            // The plain RedisLock API: no token is ever picked up.
            assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS, owner)).isTrue();
            lock.unlock(owner);
        }
        long owner = RedisLock.newOwnerId();
        java.util.OptionalLong token = lock.tryLockAndGetToken(0, 30, TimeUnit.SECONDS, owner);
        lock.unlock(owner);
        // Each call keeps its own token: the one asked for is the 21st drawn, not a leftover of the others.
        assertThat(token).hasValue(21);
    }

    @Test
    void whenAnAcquireReplyArrivesAfterTheCallerStoppedWaitingThenTheOwnerAdoptsItsHold() throws Exception {
        LockEngine engine = engine(Duration.ofSeconds(10));
        String name = "late-reply:" + UUID.randomUUID();
        ReentrantRedisLock lock = new ReentrantRedisLock(engine, name);
        long owner = RedisLock.newOwnerId();
        // Connected first: the attempt below must go out on the command connection at once, not
        // wait for the connection to open on another thread.
        assertThat(lock.isLocked()).isFalse();
        redis.command("CLIENT", "PAUSE", "1500");
        CompletableFuture<Long> attempt = engine.calls().call(() -> lock.tryOnce(Attempt.once(30_000, owner)));
        // What engine.await does when its deadline passes: it stops waiting for this reply.
        attempt.cancel(false);
        await().atMost(Duration.ofSeconds(10)).until(() -> "1".equals(redis.command("EXISTS", name)));
        // The late reply must not make the owner a stranger to its own hold.
        assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS, owner)).isTrue();
        assertThat(redis.command("HGET", name, engine.ownerField(owner))).isEqualTo("1");
        lock.unlock(owner);
        assertThat(redis.command("EXISTS", name)).isEqualTo("0");
        assertThat(engine.uncertainAcquisitions().isEmpty()).isTrue();
    }
}
