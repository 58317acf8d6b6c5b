package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServers;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LockKindTests {

    private static LockClient client;

    @BeforeAll
    static void start() {
        client = LockClient.create(RedisServers.shared().uri());
    }

    @AfterAll
    static void close() {
        client.close();
    }

    static Stream<Arguments> kinds() {
        return Stream.of(
                Arguments.of(LockKind.REENTRANT, (Function<String, RedisLock>) client::getLock),
                Arguments.of(LockKind.FENCED, (Function<String, RedisLock>) client::getFencedLock),
                Arguments.of(LockKind.FAIR, (Function<String, RedisLock>) client::getFairLock),
                Arguments.of(LockKind.READ, (Function<String, RedisLock>)
                        name -> client.getReadWriteLock(name).readLock()),
                Arguments.of(LockKind.WRITE, (Function<String, RedisLock>)
                        name -> client.getReadWriteLock(name).writeLock()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void whenAnOwnerHoldsALockThenItsHeldLockNamesTheKind(LockKind kind, Function<String, RedisLock> factory)
            throws InterruptedException {
        String name = "kind-" + kind.kindName() + "-" + UUID.randomUUID();
        long owner = RedisLock.newOwnerId();
        RedisLock lock = factory.apply(name);
        assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS, owner)).isTrue();
        try {
            assertThat(client.heldLocks())
                    .filteredOn(held -> held.name().equals(name))
                    .singleElement()
                    .extracting(HeldLock::kind)
                    .isEqualTo(kind);
        } finally {
            lock.unlock(owner);
        }
    }

    @Test
    void shouldNameEveryKindInLowercaseAsDiagnosticsAlwaysHave() {
        assertThat(Stream.of(LockKind.values()).map(LockKind::kindName))
                .containsExactly("reentrant", "fenced", "fair", "read", "write", "red", "semaphore");
    }

    @Test
    void whenAReadWriteLockIsInspectedThenItsModeIsAKind() throws InterruptedException {
        String name = "kind-mode-" + UUID.randomUUID();
        long owner = RedisLock.newOwnerId();
        RedisReadWriteLock lock = client.getReadWriteLock(name);
        assertThat(client.inspect(name).modeKind()).isNull();
        assertThat(lock.writeLock().tryLock(0, 30, TimeUnit.SECONDS, owner)).isTrue();
        assertThat(client.inspect(name).modeKind()).isEqualTo(LockKind.WRITE);
        lock.writeLock().unlock(owner);
        assertThat(lock.readLock().tryLock(0, 30, TimeUnit.SECONDS, owner)).isTrue();
        assertThat(client.inspect(name).modeKind()).isEqualTo(LockKind.READ);
        lock.readLock().unlock(owner);
        String reentrant = "kind-mode-reentrant-" + UUID.randomUUID();
        client.getLock(reentrant).lock();
        assertThat(client.inspect(reentrant).modeKind()).isNull();
        client.getLock(reentrant).unlock();
    }
}
