package dev.distlock.core.internal.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.kind.AbstractRedisLock;
import dev.distlock.core.internal.kind.FairRedisLock;
import dev.distlock.core.internal.kind.FencedRedisLock;
import dev.distlock.core.internal.kind.RedisReadLock;
import dev.distlock.core.internal.kind.RedisWriteLock;
import dev.distlock.core.internal.kind.ReentrantRedisLock;
import dev.distlock.core.test.RedisServers;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A release retried with the same request id replays its first outcome, for every kind: the reply
 * of a release can be lost after the script ran, and the retry must not take a second hold away.
 */
class UnlockLatchTests {

    private final LockEngine engine = new LockEngine(
            LockClientOptions.builder().uri(RedisServers.shared().uri()).build());

    @AfterEach
    void tearDown() {
        engine.close();
    }

    static Stream<Arguments> kinds() {
        return Stream.of(
                kind("reentrant", ReentrantRedisLock::new),
                kind("fair", FairRedisLock::new),
                kind("fenced", FencedRedisLock::new),
                kind("read", RedisReadLock::new),
                kind("write", RedisWriteLock::new));
    }

    private static Arguments kind(String kind, BiFunction<LockEngine, String, AbstractRedisLock> factory) {
        return Arguments.of(kind, factory);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void shouldNotReleaseTwiceForOneRequest(String kind, BiFunction<LockEngine, String, AbstractRedisLock> factory)
            throws Exception {
        AbstractRedisLock lock = factory.apply(engine, kind + "-latch:" + UUID.randomUUID());
        long owner = Thread.currentThread().getId();
        lock.lock(30, TimeUnit.SECONDS);
        lock.lock(30, TimeUnit.SECONDS);
        assertThat(lock.release(30_000, owner, "request-1").get()).isZero();
        assertThat(lock.release(30_000, owner, "request-1").get())
                .as("replayed")
                .isZero();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        assertThat(lock.release(30_000, owner, "request-2").get()).isEqualTo(1);
        assertThat(lock.release(30_000, owner, "request-2").get())
                .as("replayed, not 'not held'")
                .isEqualTo(1);
        assertThat(lock.release(30_000, owner, "request-3").get())
                .as("a new request sees the truth")
                .isNull();
        // The script names the latch of request n of a client <client id>:<n>, as the layout does.
        String latch = lock.layout.unlockLatch(engine.clientId() + ":request-1");
        assertThat(latch)
                .isEqualTo("redisson_unlock_latch:{" + lock.getName() + "}:" + engine.clientId() + ":request-1");
        assertThat(RedisServers.shared().command("PTTL", latch))
                .as("the latch expires by itself")
                .satisfies(ttl -> assertThat(Long.parseLong(ttl)).isBetween(1L, engine.unlockLatchMillis()));
    }
}
