package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link LockListener#onReleasing}: heard once per hold, before the release, on the unlocking
 * thread, by the client's listener and by a lock view's listener alike.
 */
class ReleasingListenerTests {

    private static RedisServer redis;
    private static LockClient client;
    private static final List<String> clientEvents = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void connect() {
        redis = RedisServers.shared();
        client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .listener(new Recorder(clientEvents))
                .build());
    }

    @AfterAll
    static void close() {
        client.close();
    }

    static Stream<Arguments> kinds() {
        return Stream.of(
                Arguments.of("reentrant", (BiFunction<LockClient, String, RedisLock>) LockClient::getLock),
                Arguments.of("fair", (BiFunction<LockClient, String, RedisLock>) LockClient::getFairLock),
                Arguments.of("read", (BiFunction<LockClient, String, RedisLock>)
                        (c, n) -> c.getReadWriteLock(n).readLock()),
                Arguments.of("write", (BiFunction<LockClient, String, RedisLock>)
                        (c, n) -> c.getReadWriteLock(n).writeLock()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void whenTheLastUnlockRunsThenReleasingIsHeardBeforeReleasedAndNestedUnlocksAreSilent(
            String kind, BiFunction<LockClient, String, RedisLock> factory) {
        String name = "releasing-" + kind + "-" + UUID.randomUUID();
        List<String> events = new CopyOnWriteArrayList<>();
        RedisLock lock = factory.apply(client, name).withListener(new Recorder(events));
        lock.lock();
        lock.lock();
        lock.unlock();
        assertThat(events).as("a nested unlock releases nothing").containsExactly("acquired", "acquired");
        lock.unlock();
        String thread = Thread.currentThread().getName();
        // Releasing is heard on the unlocking thread; released wherever Redis's reply arrives.
        assertThat(events).hasSize(4).startsWith("acquired", "acquired", "releasing on " + thread);
        assertThat(events.get(3)).startsWith("released on ");
        int releasing = clientEvents.indexOf("releasing on " + thread);
        assertThat(releasing).isNotNegative();
        assertThat(clientEvents.subList(releasing + 1, clientEvents.size()))
                .anyMatch(event -> event.startsWith("released on "));
    }

    @Test
    void whenTheLeaseIsGoneAtUnlockThenReleasingIsFollowedByTheLoss() throws InterruptedException {
        String name = "releasing-lost-" + UUID.randomUUID();
        List<String> events = new CopyOnWriteArrayList<>();
        RedisLock lock = client.getLock(name).withListener(new Recorder(events));
        assertThat(lock.tryLock(0, 30_000, TimeUnit.MILLISECONDS, 42L)).isTrue();
        assertThat(redis.command("DEL", name)).isEqualTo("1");
        assertThatThrownBy(() -> lock.unlock(42L)).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(events)
                .containsExactly(
                        "acquired", "releasing on " + Thread.currentThread().getName(), "lost");
    }

    private record Recorder(List<String> events) implements LockListener {

        @Override
        public void onAcquired(String lockName, long ownerId, long waitNanos) {
            events.add("acquired");
        }

        @Override
        public void onReleasing(String lockName, long ownerId) {
            events.add("releasing on " + Thread.currentThread().getName());
        }

        @Override
        public void onReleased(String lockName, long ownerId) {
            events.add("released on " + Thread.currentThread().getName());
        }

        @Override
        public void onLeaseLost(String lockName, long ownerId) {
            events.add("lost");
        }
    }
}
