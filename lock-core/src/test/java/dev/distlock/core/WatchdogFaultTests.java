package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.kind.ReentrantRedisLock;
import dev.distlock.core.internal.script.ScriptExecutor;
import dev.distlock.core.internal.script.Scripts;
import dev.distlock.core.internal.watchdog.LeaseWatchdog;
import dev.distlock.core.test.RedisCluster;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The watchdog under faults: a frozen Cluster master, a key in a bad state, a renewal that races a re-acquisition. */
@Tag("fault")
class WatchdogFaultTests {

    private final List<AutoCloseable> cleanup = new ArrayList<>();
    private final List<String> lost = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closeLater(T resource) {
        cleanup.add(resource);
        return resource;
    }

    private LockListener recordingLosses() {
        return new LockListener() {
            @Override
            public void onLeaseLost(String lockName, long ownerId) {
                lost.add(lockName);
            }
        };
    }

    @Test
    void whenOneClusterMasterIsFrozenThenHoldsOnTheOtherMastersAreStillRenewed() throws Exception {
        RedisCluster cluster = closeLater(RedisCluster.start(3));
        for (RedisServer master : cluster.masters()) {
            // Keep the healthy masters serving while one is frozen: no failure detection, no CLUSTERDOWN.
            master.command("CONFIG", "SET", "cluster-node-timeout", "120000");
            master.command("CONFIG", "SET", "cluster-require-full-coverage", "no");
        }
        LockClient alice = closeLater(LockClient.create(LockClientOptions.builder()
                .cluster(cluster.uris())
                .commandTimeout(Duration.ofSeconds(1))
                .watchdogTimeout(Duration.ofSeconds(3))
                .build()));
        LockClient bob = closeLater(LockClient.create(LockClientOptions.builder()
                .cluster(cluster.uris())
                .commandTimeout(Duration.ofSeconds(1))
                .build()));
        String run = UUID.randomUUID().toString();
        List<String> onFrozen = new ArrayList<>();
        Set<Integer> slots = new HashSet<>();
        String healthy = null;
        for (int i = 0; onFrozen.size() < 6 || healthy == null; i++) {
            String name = "starve-" + run + "-" + i;
            int master = cluster.masterIndexOf(name);
            if (master == 0 && onFrozen.size() < 6 && slots.add(SlotHash.getSlot(name))) {
                onFrozen.add(name);
            } else if (master == 1 && healthy == null) {
                healthy = name;
            }
        }
        long owner = RedisLock.newOwnerId();
        for (String name : onFrozen) {
            assertThat(alice.getLock(name).tryLock(0, RedisLock.WATCHDOG_LEASE, TimeUnit.SECONDS, owner))
                    .isTrue();
        }
        RedisLock healthyLock = alice.getLock(healthy);
        assertThat(healthyLock.tryLock(0, RedisLock.WATCHDOG_LEASE, TimeUnit.SECONDS, owner))
                .isTrue();
        RedisLock contender = bob.getLock(healthy);
        long bobOwner = RedisLock.newOwnerId();
        RedisServer frozen = cluster.masters().get(0);
        frozen.pause();
        try {
            // Three watchdog timeouts: only renewals that do not wait behind the frozen master keep it.
            await().during(Duration.ofSeconds(9))
                    .atMost(Duration.ofSeconds(12))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> !contender.tryLock(0, 30, TimeUnit.SECONDS, bobOwner));
        } finally {
            frozen.resume();
        }
        assertThat(healthyLock.isHeldBy(owner)).isTrue();
        assertThat(lost).doesNotContain(healthy);
        healthyLock.unlock(owner);
    }

    @Test
    void whenOneKeyOfARenewalBatchHasTheWrongTypeThenTheOtherHoldsAreStillRenewed() throws Exception {
        RedisServer redis = closeLater(RedisServers.start());
        Logger watchdogLog = (Logger) LoggerFactory.getLogger(LeaseWatchdog.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        watchdogLog.addAppender(logged);
        closeLater(() -> watchdogLog.detachAppender(logged));
        LockClient client = closeLater(LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .watchdogTimeout(Duration.ofSeconds(3))
                .listener(recordingLosses())
                .build()));
        String good = "renew-good:" + UUID.randomUUID();
        String bad = "renew-bad:" + UUID.randomUUID();
        long goodOwner = RedisLock.newOwnerId();
        long badOwner = RedisLock.newOwnerId();
        assertThat(client.getLock(good).tryLock(0, RedisLock.WATCHDOG_LEASE, TimeUnit.SECONDS, goodOwner))
                .isTrue();
        assertThat(client.getLock(bad).tryLock(0, RedisLock.WATCHDOG_LEASE, TimeUnit.SECONDS, badOwner))
                .isTrue();
        // Someone overwrites one lock key with a string: every command on it now fails with WRONGTYPE.
        redis.command("SET", bad, "not-a-lock");

        LockEngine engine = client.engine();
        List<Long> reply = engine.scripts()
                .<List<Long>>run(
                        Scripts.RENEW,
                        new String[] {good, bad},
                        "3000",
                        engine.ownerField(goodOwner),
                        engine.ownerField(badOwner))
                .get(5, TimeUnit.SECONDS);
        assertThat(reply)
                .as("renewed, unknown (neither renewed nor found lost)")
                .containsExactly(1L, -1L);

        // Three watchdog timeouts: the good hold lives only if its batch survives the bad key.
        await().during(Duration.ofSeconds(9)).atMost(Duration.ofSeconds(12)).until(() -> "1"
                .equals(redis.command("HEXISTS", good, engine.ownerField(goodOwner))));
        assertThat(lost)
                .as("a key in a bad state is retried, not declared lost")
                .isEmpty();
        await().atMost(Duration.ofSeconds(10)).until(() -> logged.list.stream()
                .anyMatch(event -> event.getLevel() == Level.WARN
                        && event.getFormattedMessage().contains(bad)));
        client.getLock(good).unlock(goodOwner);
    }

    @Test
    void whenOneKeyOfAReadWriteRenewalBatchIsInABadStateThenTheOthersAreStillRenewed() throws Exception {
        RedisServer redis = closeLater(RedisServers.start());
        LockClient client = closeLater(LockClient.create(redis.uri()));
        LockEngine engine = client.engine();
        String read = "rw-renew-read:" + UUID.randomUUID();
        String write = "rw-renew-write:" + UUID.randomUUID();
        String bad = "rw-renew-bad:" + UUID.randomUUID();
        long owner = RedisLock.newOwnerId();
        assertThat(client.getReadWriteLock(read).readLock().tryLock(0, 30, TimeUnit.SECONDS, owner))
                .isTrue();
        assertThat(client.getReadWriteLock(write).writeLock().tryLock(0, 30, TimeUnit.SECONDS, owner))
                .isTrue();
        redis.command("SET", bad, "not-a-lock");
        List<Long> reads = engine.scripts()
                .<List<Long>>run(
                        Scripts.RW_READ_RENEW,
                        // The read hold's timeout key is declared after the lock keys, as the client sends it.
                        new String[] {read, bad, "{" + read + "}:" + engine.ownerField(owner) + ":rwlock_timeout:1"},
                        "60000",
                        engine.ownerField(owner),
                        engine.ownerField(owner))
                .get(5, TimeUnit.SECONDS);
        List<Long> writes = engine.scripts()
                .<List<Long>>run(
                        Scripts.RW_WRITE_RENEW,
                        new String[] {write, bad},
                        "60000",
                        engine.ownerField(owner) + ":write",
                        engine.ownerField(owner) + ":write")
                .get(5, TimeUnit.SECONDS);
        assertThat(reads).containsExactly(1L, -1L);
        assertThat(writes).containsExactly(1L, -1L);
        assertThat(Long.parseLong(redis.command("PTTL", write))).isGreaterThan(30_000);
    }

    @Test
    void whenARenewalIsSentAfterItsHoldWasReleasedAndRetakenWithAnExplicitLeaseThenItDoesNotExtendIt()
            throws Exception {
        RedisServer redis = RedisServers.shared();
        LockEngine engine = closeLater(
                new LockEngine(LockClientOptions.builder().uri(redis.uri()).build()));
        ReentrantRedisLock lock = new ReentrantRedisLock(engine, "stale-renewal:" + UUID.randomUUID());
        lock.lock();
        CountDownLatch renewalBuilt = new CountDownLatch(1);
        CountDownLatch send = new CountDownLatch(1);
        // A second watchdog over the same holds whose renewal is held back between choosing its holds
        // and sending them, as a descheduled watchdog thread would be.
        ScriptExecutor delayed = new ScriptExecutor(() -> {
            renewalBuilt.countDown();
            try {
                send.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            return engine.connector().commands();
        });
        LeaseWatchdog watchdog = new LeaseWatchdog(
                engine.holds(),
                delayed,
                key -> 0,
                hold -> lost.add(hold.lockName()),
                Duration.ofSeconds(60),
                Duration.ofSeconds(5),
                engine.connector()::nextConnectionChange);
        CompletableFuture<Void> round = CompletableFuture.runAsync(watchdog::renewAll);
        assertThat(renewalBuilt.await(10, TimeUnit.SECONDS)).isTrue();
        long owner = Thread.currentThread().getId();
        CompletableFuture<Void> retake = CompletableFuture.runAsync(() -> {
            lock.unlock(owner);
            try {
                assertThat(lock.tryLock(0, 3000, TimeUnit.MILLISECONDS, owner)).isTrue();
            } catch (InterruptedException ex) {
                throw new IllegalStateException(ex);
            }
        });
        try {
            // Unfixed, the owner is done long before the renewal goes out; fixed, it waits for it.
            retake.get(5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException ex) {
            // The owner waits until the renewal is on its way; let it go.
        }
        send.countDown();
        round.get(10, TimeUnit.SECONDS);
        retake.get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(lock.remainTimeToLive())
                .as("the explicit 3 s lease, not the 60 s watchdog lease")
                .isBetween(1L, 3000L));
        await().atMost(Duration.ofSeconds(10)).until(() -> !lock.isLocked());
        assertThat(lost).isEmpty();
    }
}
