package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.distlock.core.test.RedisCluster;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.slf4j.LoggerFactory;

/**
 * Every lock name works on a Redis Cluster, whatever its braces: a name whose braces are no hash
 * tag, or whose companions in Redisson's layout would hash to other slots (CROSSSLOT), gets a
 * layout of one slot. Each kind is taken, excludes another client, wakes a parked waiter of that
 * client on release (a waiter the release message did not reach would sleep the whole 30 s lease)
 * and leaves nothing held.
 */
class HashTagClusterTests {

    private static RedisCluster cluster;
    private static LockClient alice;
    private static LockClient bob;
    private static RedissonClient redisson;

    /** Redisson's locks belong to the calling thread. */
    private static final ExecutorService redissonOwner = Executors.newSingleThreadExecutor();

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
        alice = LockClient.create(
                LockClientOptions.builder().cluster(cluster.uris()).build());
        bob = LockClient.create(
                LockClientOptions.builder().cluster(cluster.uris()).build());
        Config config = new Config();
        config.useClusterServers().addNodeAddress(cluster.uris());
        redisson = Redisson.create(config);
    }

    @AfterAll
    static void stopCluster() throws InterruptedException {
        redissonOwner.shutdownNow();
        redissonOwner.awaitTermination(5, TimeUnit.SECONDS);
        if (redisson != null) {
            redisson.shutdown();
        }
        if (alice != null) {
            alice.close();
            bob.close();
        }
        cluster.close();
    }

    /**
     * Names whose braces form no hash tag, with and without a brace that closes none, names with a
     * tag, and names with '}' but no '{' (Redisson's companions of those hash the text before the '}').
     */
    static Stream<Named<String>> names() {
        return Stream.concat(
                Stream.of("a{}", "}{", "{}z", "{", "}", "{}", "{{a}}", "a{b}c{d}", "x{", "a}b", "ключ{}🔒")
                        .map(name -> Named.of(name, name)),
                Stream.of(Named.of("very long", "x".repeat(4000) + "}{" + "y".repeat(4000) + "{")));
    }

    private static void assertExclusiveAndReleasable(String name, Function<LockClient, RedisLock> kind)
            throws Exception {
        assertExclusiveAndReleasable(name, kind, true);
    }

    /** {@code parks}: whether a waiter parks on a wake-up channel (a red lock retries in rounds instead). */
    private static void assertExclusiveAndReleasable(String name, Function<LockClient, RedisLock> kind, boolean parks)
            throws Exception {
        RedisLock ours = kind.apply(alice);
        RedisLock theirs = kind.apply(bob);
        long holder = RedisLock.newOwnerId();
        long waiter = RedisLock.newOwnerId();
        assertThat(ours.tryLock(0, 30, TimeUnit.SECONDS, holder))
                .as("acquire %s", name)
                .isTrue();
        assertThat(ours.isLocked()).isTrue();
        assertThat(theirs.tryLock(0, 30, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                .as("exclusion on %s", name)
                .isFalse();
        FutureTask<Boolean> waiting = new FutureTask<>(() -> theirs.tryLock(20, 30, TimeUnit.SECONDS, waiter));
        Thread thread = new Thread(waiting, "hash-tag-waiter");
        thread.start();
        if (parks) {
            await().atMost(Duration.ofSeconds(10)).until(() -> Parked.waiters(bob) >= 1);
        }
        ours.unlock(holder);
        assertThat(waiting.get(10, TimeUnit.SECONDS))
                .as("waiter woken on %s", name)
                .isTrue();
        theirs.unlock(waiter);
        assertThat(ours.isLocked()).as("released %s", name).isFalse();
    }

    @ParameterizedTest
    @MethodSource("names")
    void whenNameHasAnyBracesThenTheReentrantLockWorksInCluster(String name) throws Exception {
        assertExclusiveAndReleasable(name, client -> client.getLock(name));
    }

    @ParameterizedTest
    @MethodSource("names")
    void whenNameHasAnyBracesThenTheFencedLockWorksInCluster(String name) throws Exception {
        FencedLock lock = alice.getFencedLock(name);
        long owner = RedisLock.newOwnerId();
        long first = lock.tryLockAndGetToken(0, 10, TimeUnit.SECONDS, owner).orElseThrow();
        lock.unlock(owner);
        assertThat(bob.getFencedLock(name)
                        .tryLockAndGetToken(0, 10, TimeUnit.SECONDS, owner)
                        .orElseThrow())
                .isGreaterThan(first);
        bob.getFencedLock(name).unlock(owner);
        assertExclusiveAndReleasable(name, client -> client.getFencedLock(name));
    }

    @ParameterizedTest
    @MethodSource("names")
    void whenNameHasAnyBracesThenTheFairLockWorksInCluster(String name) throws Exception {
        assertExclusiveAndReleasable(name, client -> client.getFairLock(name));
        assertThat(alice.inspect(name).queueLength()).isZero();
    }

    @ParameterizedTest
    @MethodSource("names")
    void whenNameHasAnyBracesThenTheWriteLockWorksInCluster(String name) throws Exception {
        assertExclusiveAndReleasable(
                name, client -> client.getReadWriteLock(name).writeLock());
    }

    @ParameterizedTest
    @MethodSource("names")
    void whenNameHasAnyBracesThenTheReadLockWorksInCluster(String name) throws Exception {
        RedisLock firstReader = alice.getReadWriteLock(name).readLock();
        RedisLock secondReader = bob.getReadWriteLock(name).readLock();
        long a = RedisLock.newOwnerId();
        long b = RedisLock.newOwnerId();
        assertThat(firstReader.tryLock(0, 10, TimeUnit.SECONDS, a))
                .as("read %s", name)
                .isTrue();
        assertThat(secondReader.tryLock(0, 10, TimeUnit.SECONDS, b))
                .as("shared read %s", name)
                .isTrue();
        assertThat(bob.getReadWriteLock(name).writeLock().tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                .as("readers exclude a writer on %s", name)
                .isFalse();
        firstReader.unlock(a);
        secondReader.unlock(b);
        assertThat(firstReader.isLocked()).isFalse();
        // A write hold, then the read side waits for it and is woken by its release.
        assertExclusiveAndReleasable(
                name,
                client -> client == alice
                        ? client.getReadWriteLock(name).writeLock()
                        : client.getReadWriteLock(name).readLock());
    }

    /**
     * Names whose keys Redisson's layout keeps in one slot: a hash tag, no braces, or a '}' without
     * '{' whose text before it happens to share the name's slot.
     */
    static Stream<Named<String>> redissonNames() {
        String fitting = null;
        for (int i = 0; fitting == null; i++) {
            if (SlotHash.getSlot("h") == SlotHash.getSlot("h}" + i)) {
                fitting = "h}" + i;
            }
        }
        return Stream.of("{{a}}", "a{b}c{d}", "ключ", fitting).map(name -> Named.of(name, name));
    }

    private static <T> T asRedissonOwner(Callable<T> call) throws Exception {
        return redissonOwner.submit(call).get(30, TimeUnit.SECONDS);
    }

    private static void assertExcludesRedisson(String name, RLock theirs, Function<LockClient, RedisLock> kind)
            throws Exception {
        RedisLock ours = kind.apply(alice);
        assertThat(asRedissonOwner(() -> theirs.tryLock(0, 30, TimeUnit.SECONDS)))
                .as("Redisson takes %s", name)
                .isTrue();
        assertThat(ours.tryLock(0, 30, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                .as("Redisson's hold excludes Distlock on %s", name)
                .isFalse();
        long waiter = RedisLock.newOwnerId();
        FutureTask<Boolean> waiting = new FutureTask<>(() -> ours.tryLock(20, 30, TimeUnit.SECONDS, waiter));
        new Thread(waiting, "redisson-interop-waiter").start();
        await().atMost(Duration.ofSeconds(10)).until(() -> Parked.waiters(alice) >= 1);
        asRedissonOwner(() -> {
            theirs.unlock();
            return null;
        });
        assertThat(waiting.get(10, TimeUnit.SECONDS))
                .as("Redisson's release wakes Distlock's waiter on %s", name)
                .isTrue();
        assertThat(asRedissonOwner(() -> theirs.tryLock(0, 30, TimeUnit.SECONDS)))
                .as("Distlock's hold excludes Redisson on %s", name)
                .isFalse();
        ours.unlock(waiter);
        assertThat(ours.isLocked()).isFalse();
    }

    @ParameterizedTest
    @MethodSource("redissonNames")
    void whenRedissonCanServeTheNameInClusterThenBothLibrariesExcludeEachOther(String name) throws Exception {
        assertExcludesRedisson(name, redisson.getLock(name), client -> client.getLock(name));
        assertExcludesRedisson(name, redisson.getFairLock(name), client -> client.getFairLock(name));
        assertExcludesRedisson(
                name, redisson.getReadWriteLock(name).writeLock(), client -> client.getReadWriteLock(name)
                        .readLock());
    }

    @Test
    void whenMembersHaveAnyBracesThenMultiLockAndRedLockWorkInCluster() throws Exception {
        List<String> members = List.of("a{}", "}{", "{}z", "}", "{{a}}");
        assertExclusiveAndReleasable(
                "multi",
                client -> MultiLock.of(members.stream()
                        .flatMap(name -> Stream.of(
                                client.getLock(name),
                                client.getFairLock("fair" + name),
                                client.getReadWriteLock("rw" + name).writeLock()))
                        .toArray(RedisLock[]::new)));
        // Routing only: a real red lock takes each member from an independent master, never one cluster.
        assertExclusiveAndReleasable(
                "red",
                client -> RedLock.of(members.stream()
                        .map(name -> client.getLock("red" + name))
                        .toArray(RedisLock[]::new)),
                false);
    }

    @Test
    void whenANameIsTheReservedKeyOfAnotherThenTheyAreStillTwoLocks() throws Exception {
        long owner = RedisLock.newOwnerId();
        RedisLock awkward = alice.getLock("a{}");
        assertThat(awkward.tryLock(0, 30, TimeUnit.SECONDS, owner)).isTrue();
        try {
            for (String name : List.of("distlock_cluster:{a{%7D}", "{a{}")) {
                RedisLock other = bob.getLock(name);
                long otherOwner = RedisLock.newOwnerId();
                assertThat(other.tryLock(0, 30, TimeUnit.SECONDS, otherOwner))
                        .as("%s is not a{}", name)
                        .isTrue();
                other.unlock(otherOwner);
            }
        } finally {
            awkward.unlock(owner);
        }
    }

    @Test
    void whenNameNeedsItsOwnLayoutThenEveryKeyOfTheLockSitsInOneSlot() throws Exception {
        RedisLock lock = alice.getFairLock("a{}");
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS, owner)).isTrue();
        try {
            String key = "distlock_cluster:{a{%7D}";
            assertThat(cluster.masterOf(key).command("EXISTS", key)).isEqualTo("1");
            assertThat(SlotHash.getSlot("redisson_lock__channel:" + key)).isEqualTo(SlotHash.getSlot(key));
        } finally {
            lock.unlock(owner);
        }
    }

    @Test
    void whenKeyPrefixHasAHashTagThenTheClientWarnsOnceThatEveryLockSharesOneSlot() {
        Logger logger = (Logger) LoggerFactory.getLogger(LockClient.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try (LockClient prefixed = LockClient.create(LockClientOptions.builder()
                .cluster(cluster.uris())
                .keyPrefix("{app}:")
                .build())) {
            prefixed.getLock("one");
            prefixed.getLock("two");
        } finally {
            logger.detachAppender(appender);
        }
        assertThat(appender.list)
                .filteredOn(e -> e.getLevel() == Level.WARN)
                .singleElement()
                .extracting(ILoggingEvent::getFormattedMessage)
                .asString()
                .contains("{app}:")
                .contains("one slot");
    }
}
