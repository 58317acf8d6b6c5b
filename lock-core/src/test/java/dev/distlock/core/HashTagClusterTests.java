package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.distlock.core.test.RedisCluster;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Lock names whose braces are not a Redis Cluster hash tag: every companion key (unlock channel,
 * queue, hold timeouts, token, latch, waiters) must hash to the lock key's slot, or the scripts
 * fail with CROSSSLOT.
 */
class HashTagClusterTests {

    private static RedisCluster cluster;
    private static LockClient alice;
    private static LockClient bob;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
        alice = LockClient.create(
                LockClientOptions.builder().cluster(cluster.uris()).build());
        bob = LockClient.create(
                LockClientOptions.builder().cluster(cluster.uris()).build());
    }

    @AfterAll
    static void stopCluster() {
        if (alice != null) {
            alice.close();
            bob.close();
        }
        cluster.close();
    }

    /** Braces that form no hash tag but leave a tag possible for the companions (no '}'). */
    private static List<String> bracedNames() {
        String run = UUID.randomUUID().toString().substring(0, 8);
        return List.of("x{" + run, run + "a{b", "{" + run, run + "{");
    }

    private static void assertExclusiveAndReleasable(String name, Function<LockClient, RedisLock> kind)
            throws Exception {
        RedisLock ours = kind.apply(alice);
        RedisLock theirs = kind.apply(bob);
        long holder = RedisLock.newOwnerId();
        long waiter = RedisLock.newOwnerId();
        // A 30 s lease: a waiter that the release message did not reach would sleep until it ends.
        assertThat(ours.tryLock(0, 30, TimeUnit.SECONDS, holder))
                .as("acquire %s", name)
                .isTrue();
        assertThat(theirs.tryLock(0, 30, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                .as("exclusion on %s", name)
                .isFalse();
        java.util.concurrent.FutureTask<Boolean> waiting =
                new java.util.concurrent.FutureTask<>(() -> theirs.tryLock(20, 30, TimeUnit.SECONDS, waiter));
        Thread thread = new Thread(waiting, "hash-tag-waiter");
        thread.start();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> Parked.waiters(bob) == 1);
        ours.unlock(holder);
        assertThat(waiting.get(10, TimeUnit.SECONDS))
                .as("waiter woken on %s", name)
                .isTrue();
        theirs.unlock(waiter);
        assertThat(ours.isLocked()).isFalse();
    }

    @Test
    void whenNameHasBracesButNoHashTagThenReentrantLockWorksInCluster() throws Exception {
        for (String name : bracedNames()) {
            assertExclusiveAndReleasable(name, client -> client.getLock(name));
        }
    }

    @Test
    void whenNameHasBracesButNoHashTagThenFencedLockWorksInCluster() throws Exception {
        for (String name : bracedNames()) {
            FencedLock lock = alice.getFencedLock(name);
            long owner = RedisLock.newOwnerId();
            long first = lock.tryLockAndGetToken(0, 10, TimeUnit.SECONDS, owner).orElseThrow();
            lock.unlock(owner);
            assertThat(lock.tryLockAndGetToken(0, 10, TimeUnit.SECONDS, owner).orElseThrow())
                    .isGreaterThan(first);
            lock.unlock(owner);
            assertExclusiveAndReleasable(name, client -> client.getFencedLock(name));
        }
    }

    @Test
    void whenNameHasBracesButNoHashTagThenFairLockWorksInCluster() throws Exception {
        for (String name : bracedNames()) {
            assertExclusiveAndReleasable(name, client -> client.getFairLock(name));
        }
    }

    @Test
    void whenNameHasBracesButNoHashTagThenWriteLockWorksInCluster() throws Exception {
        for (String name : bracedNames()) {
            assertExclusiveAndReleasable(
                    name, client -> client.getReadWriteLock(name).writeLock());
        }
    }

    @Test
    void whenNameHasBracesButNoHashTagThenReadLockWorksInCluster() throws Exception {
        for (String name : bracedNames()) {
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
    }

    @Test
    void whenNameHasBracesThatCannotShareASlotThenEveryKindRefusesItClearly() {
        for (String name : List.of("a{}", "}{", "{}z", "}x{")) {
            List<Function<LockClient, Object>> kinds = List.of(
                    c -> c.getLock(name),
                    c -> c.getFencedLock(name),
                    c -> c.getFairLock(name),
                    c -> c.getReadWriteLock(name).readLock(),
                    c -> c.getReadWriteLock(name).writeLock());
            for (Function<LockClient, Object> kind : kinds) {
                assertThatIllegalArgumentException()
                        .as("name %s", name)
                        .isThrownBy(() -> kind.apply(alice))
                        .withMessageContaining("'" + name + "'")
                        .withMessageContaining("hash tag");
            }
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
