package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An acquire whose connection is dropped while Redis holds its script fails; the caller's retry
 * right after it must hold the lock for as long as it believes it does. The failed call's clean-up
 * (the release of whatever its lost attempt may have taken) is written after the reconnect, after
 * the retry's grant: it must not take that grant away. Every kind with a lost-reply path is tried.
 */
@Tag("fault")
class DroppedConnectionTests {

    /** How long Redis holds writes: the lost attempt, the retry and the clean-up all wait it out. */
    private static final int PAUSE_MILLIS = 1000;

    private RedisServer redis;
    private LockClient client;
    private LockClient other;
    private ExecutorService attempts;

    @BeforeEach
    void setUp() {
        redis = RedisServers.start();
        client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .reconnectDelay(Duration.ofMillis(300), Duration.ofSeconds(1))
                .build());
        other = LockClient.create(redis.uri());
        attempts = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void tearDown() {
        attempts.shutdownNow();
        try {
            redis.command("CLIENT", "UNPAUSE");
        } catch (RuntimeException ignored) {
            // Redis 6.2 has no UNPAUSE; the pause ends by itself.
        }
        client.close();
        other.close();
        redis.stop();
    }

    /** A kind, how to get it from a client, and a lock that a holder of it keeps another client out of. */
    static Stream<Arguments> kinds() {
        BiFunction<LockClient, String, RedisLock> reentrant = LockClient::getLock;
        BiFunction<LockClient, String, RedisLock> fenced = LockClient::getFencedLock;
        BiFunction<LockClient, String, RedisLock> fair = LockClient::getFairLock;
        BiFunction<LockClient, String, RedisLock> read =
                (c, n) -> c.getReadWriteLock(n).readLock();
        BiFunction<LockClient, String, RedisLock> write =
                (c, n) -> c.getReadWriteLock(n).writeLock();
        // A MultiLock's members are reentrant locks: the key checked is its first member's. Plain
        // members on one server are taken by one script; a fenced member keeps them member by member.
        BiFunction<LockClient, String, RedisLock> multi =
                (c, n) -> MultiLock.of(c.getLock(n), c.getLock(n + "/second"));
        BiFunction<LockClient, String, RedisLock> multiByMember =
                (c, n) -> MultiLock.of(c.getLock(n), c.getFencedLock(n + "/second"));
        return Stream.of(
                Arguments.of("reentrant", reentrant, reentrant),
                Arguments.of("fenced", fenced, fenced),
                Arguments.of("fair", fair, fair),
                Arguments.of("read", read, write),
                Arguments.of("write", write, read),
                Arguments.of("multi", multi, reentrant),
                Arguments.of("multi member by member", multiByMember, reentrant));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void whenAnAcquireLosesItsConnectionThenTheRetryKeepsItsHold(
            String kind,
            BiFunction<LockClient, String, RedisLock> lockOf,
            BiFunction<LockClient, String, RedisLock> excluderOf)
            throws Exception {
        String name = "dropped-connection:" + kind + ":" + UUID.randomUUID();
        RedisLock lock = lockOf.apply(client, name);
        client.ping();
        other.ping();

        // One owner for both calls, as one thread retrying would be: the lost call runs on another thread.
        long owner = RedisLock.newOwnerId();
        dropTheConnectionUnder(lock, owner);

        assertThat(lock.tryLock(0, -1, TimeUnit.SECONDS, owner))
                .as("the retry right after it")
                .isTrue();
        RedisLock excluder = excluderOf.apply(other, name);
        // Well past the pause: the failed call's clean-up has been written by then.
        await().pollDelay(Duration.ofMillis(PAUSE_MILLIS + 1500))
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(redis.command("EXISTS", name))
                        .as("the lock key after the clean-up")
                        .isEqualTo("1"));
        assertThat(lock.isHeldBy(owner)).as("held by the retrying owner").isTrue();
        assertThat(excluder.tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                .as("another client while the retry holds the lock")
                .isFalse();
        lock.unlock(owner);
        assertThat(excluder.tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                .as("another client once the lock is released")
                .isTrue();
    }

    /**
     * One script takes every member of a multi lock on one server, and records its attempt as
     * each member's grant: the clean-up after its lost reply names that attempt, so it must leave
     * every member of the retry's grant in place, not only the first.
     */
    @Test
    void whenABatchedMultiLocksAcquireLosesItsConnectionThenTheRetryKeepsEveryMember() throws Exception {
        String name = "dropped-connection:batch:" + UUID.randomUUID();
        List<String> members = List.of(name + "/a", name + "/b", name + "/c");
        MultiLock lock = MultiLock.of(members.stream().map(client::getLock).toArray(RedisLock[]::new));
        client.ping();
        other.ping();

        long owner = RedisLock.newOwnerId();
        dropTheConnectionUnder(lock, owner);

        assertThat(lock.tryLock(0, -1, TimeUnit.SECONDS, owner))
                .as("the retry right after it")
                .isTrue();
        await().pollDelay(Duration.ofMillis(PAUSE_MILLIS + 1500))
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(members)
                        .as("members keeping their lock key after the clean-up")
                        .allMatch(member -> redis.command("EXISTS", member).equals("1")));
        assertThat(lock.isHeldBy(owner)).as("held by the retrying owner").isTrue();
        for (String member : members) {
            assertThat(other.getLock(member).tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                    .as("another client on member %s while the retry holds it", member)
                    .isFalse();
        }
        lock.unlock(owner);
        assertThat(members).allMatch(member -> redis.command("EXISTS", member).equals("0"));
    }

    /**
     * A multi lock acquire whose reply never comes (the command timeout passes while Redis holds
     * the script) but which Redis then runs: the caller was told it failed, so the clean-up that
     * names the lost attempt releases every member the script took, long before their lease ends.
     */
    @Test
    void whenABatchedMultiLocksAcquireReplyIsLostThenTheCleanUpReleasesEveryMemberItTook() throws Exception {
        String name = "lost-reply:batch:" + UUID.randomUUID();
        List<String> members = List.of(name + "/a", name + "/b", name + "/c");
        try (LockClient impatient = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .commandTimeout(Duration.ofMillis(300))
                .build())) {
            MultiLock lock =
                    MultiLock.of(members.stream().map(impatient::getLock).toArray(RedisLock[]::new));
            // Once first, so that Redis knows the scripts: an unknown one would only answer NOSCRIPT.
            long owner = RedisLock.newOwnerId();
            assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS, owner)).isTrue();
            lock.unlock(owner);
            redis.command("CLIENT", "PAUSE", Integer.toString(PAUSE_MILLIS), "WRITE");
            assertThatThrownBy(() -> lock.tryLock(0, 30, TimeUnit.SECONDS, owner))
                    .as("an acquire whose reply did not come within the command timeout")
                    .isInstanceOf(LockException.class);
            // The script runs once the pause ends, and the clean-up after it: nothing is left for 30 s.
            await().pollDelay(Duration.ofMillis(PAUSE_MILLIS))
                    .atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(members)
                            .as("members left after the clean-up")
                            .allMatch(member -> redis.command("EXISTS", member).equals("0")));
            assertThat(impatient.heldLocks()).isEmpty();
            assertThat(other.getLock(members.get(0)).tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                    .as("another client once the clean-up ran")
                    .isTrue();
        }
    }

    @Test
    void whenARedLocksAcquireLosesItsConnectionsThenTheRetryKeepsItsHoldOnEveryMaster() throws Exception {
        List<RedisServer> masters = RedisServers.start(3);
        List<LockClient> clients = new ArrayList<>();
        try {
            String name = "dropped-connection:red:" + UUID.randomUUID();
            List<RedisLock> mine = new ArrayList<>();
            List<RedisLock> theirs = new ArrayList<>();
            for (RedisServer master : masters) {
                LockClient own = LockClient.create(LockClientOptions.builder()
                        .uri(master.uri())
                        .reconnectDelay(Duration.ofMillis(300), Duration.ofSeconds(1))
                        .build());
                LockClient another = LockClient.create(master.uri());
                clients.add(own);
                clients.add(another);
                own.ping();
                another.ping();
                mine.add(own.getLock(name));
                theirs.add(another.getLock(name));
            }
            RedLock lock = RedLock.of(mine.toArray(RedisLock[]::new));
            long owner = RedisLock.newOwnerId();

            for (RedisServer master : masters) {
                master.command("CLIENT", "PAUSE", Integer.toString(PAUSE_MILLIS), "WRITE");
            }
            Future<Boolean> lost = attempts.submit(() -> lock.tryLock(0, -1, TimeUnit.SECONDS, owner));
            await().atMost(Duration.ofMillis(PAUSE_MILLIS / 2))
                    .until(() -> masters.stream().allMatch(master -> blockedClients(master) > 0));
            for (RedisServer master : masters) {
                master.command("CLIENT", "KILL", "TYPE", "normal");
            }
            // A red lock counts a master that failed as one that refused: no quorum, so no lock.
            try {
                assertThat(lost.get(10, TimeUnit.SECONDS))
                        .as("a red lock acquire whose connections were dropped")
                        .isFalse();
            } catch (ExecutionException ex) {
                assertThat(ex).hasCauseInstanceOf(LockException.class);
            }

            // A red lock round does not wait for reconnects within a zero wait: this retry waits a little.
            assertThat(lock.tryLock(5, -1, TimeUnit.SECONDS, owner))
                    .as("the retry right after it")
                    .isTrue();
            await().pollDelay(Duration.ofMillis(PAUSE_MILLIS + 1500))
                    .atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(masters)
                            .as("masters keeping the lock key after the clean-up")
                            .allMatch(master -> master.command("EXISTS", name).equals("1")));
            assertThat(lock.isHeldBy(owner)).as("held by the retrying owner").isTrue();
            RedLock other = RedLock.of(theirs.toArray(RedisLock[]::new));
            assertThat(other.tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                    .as("another client's red lock while the retry holds it")
                    .isFalse();
            lock.unlock(owner);
        } finally {
            clients.forEach(LockClient::close);
            masters.forEach(RedisServer::stop);
        }
    }

    /**
     * Starts the owner's {@code tryLock(0, -1)} with Redis holding writes, kills the connection under
     * it and checks that it failed: its script may or may not have run.
     */
    private void dropTheConnectionUnder(RedisLock lock, long owner) {
        redis.command("CLIENT", "PAUSE", Integer.toString(PAUSE_MILLIS), "WRITE");
        Future<Boolean> lost = attempts.submit(() -> lock.tryLock(0, -1, TimeUnit.SECONDS, owner));
        await().atMost(Duration.ofMillis(PAUSE_MILLIS / 2)).until(() -> blockedClients() > 0);
        redis.command("CLIENT", "KILL", "TYPE", "normal");
        assertThatThrownBy(() -> lost.get(10, TimeUnit.SECONDS))
                .as("an acquire whose connection was dropped")
                .hasCauseInstanceOf(LockException.class);
    }

    private long blockedClients() {
        return blockedClients(redis);
    }

    private static long blockedClients(RedisServer server) {
        return server.command("INFO", "clients")
                .lines()
                .filter(line -> line.startsWith("blocked_clients:"))
                .mapToLong(line -> Long.parseLong(
                        line.substring("blocked_clients:".length()).trim()))
                .sum();
    }
}
