package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code tryLock()} follows {@link java.util.concurrent.locks.Lock#tryLock()}: it ignores the interrupt flag. */
class TryLockInterruptTests {

    private final RedisServer redis = RedisServers.shared();
    private LockClient client;

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
        client = LockClient.create(redis.uri());
    }

    @AfterEach
    void tearDown() {
        Thread.interrupted();
        client.close();
    }

    private RedisLock lock(String kind) {
        Function<String, RedisLock> of =
                switch (kind) {
                    case "fenced" -> client::getFencedLock;
                    case "fair" -> client::getFairLock;
                    case "read" -> name -> client.getReadWriteLock(name).readLock();
                    case "write" -> name -> client.getReadWriteLock(name).writeLock();
                    case "multi" -> name -> MultiLock.of(client.getLock(name + "-a"), client.getLock(name + "-b"));
                    case "red" ->
                        name -> RedLock.of(
                                client.getLock(name + "-a"), client.getLock(name + "-b"), client.getLock(name + "-c"));
                    default -> client::getLock;
                };
        return of.apply("interrupt-" + kind);
    }

    @ParameterizedTest
    @ValueSource(strings = {"reentrant", "fenced", "fair", "read", "write", "multi", "red"})
    void whenInterruptFlagIsSetThenTryLockStillAcquiresAFreeLockAndKeepsTheFlag(String kind) {
        RedisLock lock = lock(kind);
        Thread.currentThread().interrupt();
        boolean acquired = lock.tryLock();
        boolean stillInterrupted = Thread.currentThread().isInterrupted();
        assertThat(acquired)
                .as("tryLock() on a free lock with the interrupt flag set")
                .isTrue();
        assertThat(stillInterrupted).as("interrupt flag after tryLock()").isTrue();
        lock.unlock();
        assertThat(Thread.interrupted()).as("interrupt flag after unlock()").isTrue();
        assertThat(lock.isLocked()).isFalse();
    }
}
