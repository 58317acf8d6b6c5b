package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
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

/** Per-lock listeners: {@link RedisLock#withListener(LockListener)} on every lock kind. */
class LockViewListenerTests {

    private static final Duration WATCHDOG = Duration.ofSeconds(1);

    private static RedisServer redis;
    private static LockClient client;
    private static final List<String> clientEvents = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void connect() {
        redis = RedisServers.shared();
        client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .watchdogTimeout(WATCHDOG)
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
                Arguments.of("fenced", (BiFunction<LockClient, String, RedisLock>) LockClient::getFencedLock),
                Arguments.of("read", (BiFunction<LockClient, String, RedisLock>)
                        (c, n) -> c.getReadWriteLock(n).readLock()),
                Arguments.of("write", (BiFunction<LockClient, String, RedisLock>)
                        (c, n) -> c.getReadWriteLock(n).writeLock()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void whenRenewalFindsTheKeyDeletedThenTheViewListenerHearsTheLoss(
            String kind, BiFunction<LockClient, String, RedisLock> factory) throws Exception {
        String name = "view-" + kind + "-" + UUID.randomUUID();
        List<String> events = new CopyOnWriteArrayList<>();
        List<String> bystander = new CopyOnWriteArrayList<>();
        RedisLock lock = factory.apply(client, name).withListener(new Recorder(events));
        factory.apply(client, name + "-other").withListener(new Recorder(bystander));
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(0, RedisLock.WATCHDOG_LEASE, TimeUnit.MILLISECONDS, owner))
                .isTrue();
        assertThat(events).containsExactly("acquired " + name + " " + owner);

        assertThat(redis.command("DEL", name)).isEqualTo("1");
        await().atMost(WATCHDOG.multipliedBy(3)).until(() -> events.contains("lost " + name + " " + owner));
        assertThat(events).containsExactly("acquired " + name + " " + owner, "lost " + name + " " + owner);
        assertThat(clientEvents).contains("lost " + name + " " + owner);
        assertThat(bystander).isEmpty();
        assertThat(lock.withListener(LockListener.NO_OP)).isInstanceOf(lock.getClass());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void whenThisClientForceUnlocksAHoldThenItsListenersHearTheLossAtOnce(
            String kind, BiFunction<LockClient, String, RedisLock> factory) throws Exception {
        String name = "view-forced-" + kind + "-" + UUID.randomUUID();
        List<String> events = new CopyOnWriteArrayList<>();
        RedisLock lock = factory.apply(client, name).withListener(new Recorder(events));
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(0, 60, TimeUnit.SECONDS, owner)).isTrue();

        assertThat(factory.apply(client, name).forceUnlock()).isTrue();
        // Told on the force-unlocking thread: an explicit lease has no renewal that would find it.
        assertThat(events).containsExactly("acquired " + name + " " + owner, "lost " + name + " " + owner);
        assertThat(clientEvents).contains("lost " + name + " " + owner);
        assertThat(client.heldLocks()).noneMatch(held -> held.name().equals(name));
        assertThatThrownBy(() -> lock.unlock(owner)).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(events).hasSize(2);
    }

    @Test
    void whenUnlockFindsTheLeaseExpiredThenTheListenerOfTheViewThatTookItHearsTheLoss() throws Exception {
        String name = "view-expired-" + UUID.randomUUID();
        List<String> events = new CopyOnWriteArrayList<>();
        FencedLock lock = client.getFencedLock(name).withListener(new Recorder(events));
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(0, 200, TimeUnit.MILLISECONDS, owner)).isTrue();
        await().atMost(Duration.ofSeconds(3))
                .until(() -> redis.command("EXISTS", name).equals("0"));

        // Unlocked through a plain view: the hold still remembers who to tell.
        assertThatThrownBy(() -> client.getFencedLock(name).unlock(owner))
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("expired");
        assertThat(events).containsExactly("acquired " + name + " " + owner, "lost " + name + " " + owner);
    }

    @Test
    void whenAcquiredRefusedAndReleasedThroughTheViewThenItsListenerHearsEachOnce() throws Exception {
        String name = "view-events-" + UUID.randomUUID();
        List<String> events = new CopyOnWriteArrayList<>();
        RedisLock plain = client.getLock(name);
        RedisLock lock = plain.withListener(new Recorder(events));
        long owner = RedisLock.newOwnerId();
        long rival = RedisLock.newOwnerId();
        assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS, owner)).isTrue();
        assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS, owner)).isTrue();
        assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS, rival)).isFalse();
        assertThat(plain.tryLock(0, 10, TimeUnit.SECONDS, rival)).isFalse();
        lock.unlock(owner);
        lock.unlock(owner);
        assertThat(events)
                .containsExactly(
                        "acquired " + name + " " + owner,
                        "acquired " + name + " " + owner,
                        "timeout " + name + " " + rival,
                        "released " + name + " " + owner);
    }

    @Test
    void whenViewListenerThrowsThenLockingIsUnaffected() throws Exception {
        String name = "view-throws-" + UUID.randomUUID();
        RedisLock lock = client.getLock(name).withListener(new LockListener() {
            @Override
            public void onAcquired(String lockName, long ownerId, long waitNanos) {
                throw new IllegalStateException("listener failure");
            }
        });
        assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
        assertThat(redis.command("EXISTS", name)).isEqualTo("0");
    }

    @Test
    void whenOneOfTheClientsListenersThrowsThenTheListenersAddedAfterItStillHearEveryEvent() throws Exception {
        String name = "client-listeners-" + UUID.randomUUID();
        List<String> first = new CopyOnWriteArrayList<>();
        List<String> last = new CopyOnWriteArrayList<>();
        LockListener throwing = new LockListener() {
            @Override
            public void onAcquired(String lockName, long ownerId, long waitNanos) {
                throw new IllegalStateException("listener failure");
            }

            @Override
            public void onReleased(String lockName, long ownerId) {
                throw new IllegalStateException("listener failure");
            }
        };
        LockClientOptions options = LockClientOptions.builder()
                .uri(redis.uri())
                .addListener(new Recorder(first))
                .addListener(throwing)
                .addListener(new Recorder(last))
                .build();
        assertThat(options.listeners()).hasSize(3);
        try (LockClient listened = LockClient.create(options)) {
            RedisLock lock = listened.getLock(name);
            long owner = RedisLock.newOwnerId();
            assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS, owner)).isTrue();
            lock.unlock(owner);
            List<String> expected = List.of("acquired " + name + " " + owner, "released " + name + " " + owner);
            assertThat(first).isEqualTo(expected);
            assertThat(last).isEqualTo(expected);
        }
        assertThat(redis.command("EXISTS", name)).isEqualTo("0");
    }

    @Test
    void whenListenerIsSetAfterOthersWereAddedThenItReplacesThem() {
        LockListener only = new Recorder(new CopyOnWriteArrayList<>());
        LockClientOptions options = LockClientOptions.builder()
                .addListener(new Recorder(new CopyOnWriteArrayList<>()))
                .listener(only)
                .build();
        assertThat(options.listeners()).containsExactly(only);
        assertThatThrownBy(() -> LockClientOptions.builder().addListener(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("'listener'");
    }

    @Test
    void whenMultiLockMemberIsLostThenTheViewListenerNamesThatMember() throws Exception {
        String first = "view-multi-a-" + UUID.randomUUID();
        String second = "view-multi-b-" + UUID.randomUUID();
        List<String> events = new CopyOnWriteArrayList<>();
        MultiLock lock =
                MultiLock.of(client.getLock(first), client.getLock(second)).withListener(new Recorder(events));
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(0, RedisLock.WATCHDOG_LEASE, TimeUnit.MILLISECONDS, owner))
                .isTrue();
        assertThat(redis.command("DEL", second)).isEqualTo("1");
        await().atMost(WATCHDOG.multipliedBy(3)).until(() -> events.contains("lost " + second + " " + owner));
        assertThat(events).doesNotContain("lost " + first + " " + owner);
        client.getLock(first).unlock(owner);
    }

    @Test
    void whenListenerIsNullThenFailsNamingIt() {
        assertThatThrownBy(() -> client.getLock("view-null").withListener(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("'listener'");
    }

    private record Recorder(List<String> events) implements LockListener {

        @Override
        public void onAcquired(String lockName, long ownerId, long waitNanos) {
            events.add("acquired " + lockName + " " + ownerId);
        }

        @Override
        public void onTimeout(String lockName, long ownerId, long waitNanos) {
            events.add("timeout " + lockName + " " + ownerId);
        }

        @Override
        public void onReleased(String lockName, long ownerId) {
            events.add("released " + lockName + " " + ownerId);
        }

        @Override
        public void onLeaseLost(String lockName, long ownerId) {
            events.add("lost " + lockName + " " + ownerId);
        }
    }
}
