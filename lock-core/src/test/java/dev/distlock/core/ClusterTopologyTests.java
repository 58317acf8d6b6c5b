package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisCluster;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.DefaultEventLoopGroupProvider;
import io.lettuce.core.resource.EventLoopGroupProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ClusterTopologyTests {

    private static RedisCluster cluster;
    private static LockClient alice;
    private static LockClient bob;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
        alice = LockClient.create(LockClientOptions.builder()
                .cluster(cluster.uris())
                .watchdogTimeout(Duration.ofSeconds(1))
                .build());
        bob = LockClient.create(
                LockClientOptions.builder().cluster(cluster.uris()[1]).build());
    }

    @AfterAll
    static void stopCluster() {
        if (alice != null) {
            alice.close();
            bob.close();
        }
        cluster.close();
    }

    /** @return one fresh lock name per master, so the test touches every node */
    private static List<String> namesOnEveryMaster() {
        String run = UUID.randomUUID().toString();
        String[] names = new String[3];
        for (int i = 0; names[0] == null || names[1] == null || names[2] == null; i++) {
            String name = "cluster-" + run + "-" + i;
            names[cluster.masterIndexOf(name)] = name;
        }
        return List.of(names);
    }

    @Test
    void whenNamesAreServedByDifferentMastersThenEachIsLockedOnItsOwnNode() throws Exception {
        for (String name : namesOnEveryMaster()) {
            RedisLock lock = alice.getLock(name);
            assertThat(lock.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
            assertThat(cluster.masterOf(name).command("EXISTS", name)).isEqualTo("1");
            assertThat(bob.getLock(name).tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                    .isFalse();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            lock.unlock();
            assertThat(cluster.masterOf(name).command("EXISTS", name)).isEqualTo("0");
        }
    }

    @Test
    void whenHolderUnlocksThenWaiterOnAnotherClientIsWokenAtOnce() throws Exception {
        for (String name : namesOnEveryMaster()) {
            long holder = RedisLock.newOwnerId();
            long waiter = RedisLock.newOwnerId();
            // A 30 s lease: a waiter that were not woken by the unlock message would sleep until it ends.
            assertThat(alice.getLock(name).tryLock(0, 30, TimeUnit.SECONDS, holder))
                    .isTrue();
            CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
                try {
                    return bob.getLock(name).tryLock(20, 10, TimeUnit.SECONDS, waiter) ? System.nanoTime() : -1L;
                } catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            String channel = "redisson_lock__channel:{" + name + "}";
            await().atMost(Duration.ofSeconds(5)).until(() -> cluster.masters().stream()
                    .anyMatch(node -> node.command("PUBSUB", "NUMSUB", channel).endsWith("\n1")
                            // Redis 7+: the channel is sharded, as Redisson's is there.
                            || RedisServers.majorVersion() >= 7
                                    && node.command("PUBSUB", "SHARDNUMSUB", channel)
                                            .endsWith("\n1")));
            long unlockedAt = System.nanoTime();
            alice.getLock(name).unlock(holder);
            long wokenAfter = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(10, TimeUnit.SECONDS) - unlockedAt);
            assertThat(wokenAfter)
                    .as("hand-off on master %d", cluster.masterIndexOf(name))
                    .isBetween(0L, 2000L);
            bob.getLock(name).unlock(waiter);
        }
    }

    @Test
    void whenWatchdogLeaseThenHoldsOnEveryMasterAreRenewed() throws Exception {
        long owner = RedisLock.newOwnerId();
        List<RedisLock> locks = new ArrayList<>();
        for (String name : namesOnEveryMaster()) {
            RedisLock lock = alice.getLock(name);
            assertThat(lock.tryLock(0, RedisLock.WATCHDOG_LEASE, TimeUnit.SECONDS, owner))
                    .isTrue();
            locks.add(lock);
        }
        // The watchdog timeout is 1 s: only renewals (one batch per slot) keep the holds alive for 3 s.
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> locks.stream()
                .allMatch(lock -> lock.isHeldBy(owner)));
        for (RedisLock lock : locks) {
            assertThat(lock.remainTimeToLive()).isBetween(1L, 1000L);
            lock.unlock(owner);
            assertThat(lock.isLocked()).isFalse();
        }
    }

    @Test
    void whenMultiLockMembersLiveOnDifferentMastersThenAllAreHeld() throws Exception {
        List<String> names = namesOnEveryMaster();
        MultiLock multi = MultiLock.of(names.stream().map(alice::getLock).toArray(RedisLock[]::new));
        assertThat(multi.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
        for (String name : names) {
            assertThat(cluster.masterOf(name).command("EXISTS", name)).isEqualTo("1");
        }
        multi.unlock();
        assertThat(multi.isLocked()).isFalse();
    }

    @Test
    void whenMultiLockMembersShareSlotsThenOneScriptPerSlotTakesThemAndOneReleasesThem() throws Exception {
        List<String> tags = namesOnEveryMaster();
        // Three members in the first tag's slot, two in the second's: two slots, on two masters.
        List<String> names = List.of(
                "{" + tags.get(0) + "}:a",
                "{" + tags.get(0) + "}:b",
                "{" + tags.get(0) + "}:c",
                "{" + tags.get(1) + "}:a",
                "{" + tags.get(1) + "}:b");
        MultiLock multi = MultiLock.of(names.stream().map(alice::getLock).toArray(RedisLock[]::new));
        // Once first: a master that has not seen a script yet answers NOSCRIPT, and it is sent again.
        assertThat(multi.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
        multi.unlock();
        long before = scriptsRun();
        assertThat(multi.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
        assertThat(scriptsRun() - before)
                .as("scripts to lock members in two slots")
                .isEqualTo(2);
        for (String name : names) {
            assertThat(cluster.masterOf(name).command("EXISTS", name)).isEqualTo("1");
            assertThat(bob.getLock(name).tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                    .isFalse();
        }
        before = scriptsRun();
        multi.unlock();
        assertThat(scriptsRun() - before)
                .as("scripts to unlock members in two slots")
                .isEqualTo(2);
        assertThat(multi.isLocked()).isFalse();
    }

    @Test
    void whenAMultiLockWaitsForAMemberHeldInAnotherSlotThenItsReleaseWakesIt() throws Exception {
        List<String> names = namesOnEveryMaster();
        long holder = RedisLock.newOwnerId();
        // A 30 s lease: a waiter that were not woken by the unlock message would sleep until it ends.
        assertThat(bob.getLock(names.get(2)).tryLock(0, 30, TimeUnit.SECONDS, holder))
                .isTrue();
        MultiLock multi = MultiLock.of(names.stream().map(alice::getLock).toArray(RedisLock[]::new));
        long owner = RedisLock.newOwnerId();
        CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
            try {
                return multi.tryLock(20, 10, TimeUnit.SECONDS, owner) ? System.nanoTime() : -1L;
            } catch (InterruptedException ex) {
                throw new IllegalStateException(ex);
            }
        });
        await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> !acquiredAt.isDone());
        long unlockedAt = System.nanoTime();
        bob.getLock(names.get(2)).unlock(holder);
        long wokenAfter = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(10, TimeUnit.SECONDS) - unlockedAt);
        assertThat(wokenAfter).as("hand-off to the waiting multi lock").isBetween(0L, 2000L);
        for (String name : names) {
            assertThat(alice.getLock(name).isHeldBy(owner)).isTrue();
        }
        multi.unlock(owner);
        assertThat(multi.isLocked()).isFalse();
    }

    /**
     * Returns a client that has not talked to the cluster yet, on one Redis I/O thread (Lettuce's own
     * resources have two at least): every reply then comes back on the thread a continuation runs
     * on, so that a continuation that waits for a reply waits for itself every time, not only when
     * the connections involved happen to share a thread. Its first calls connect, load the topology
     * and the scripts: a 10 s command timeout keeps a loaded machine's cold start from failing them
     * (a wait for itself then lasts 10 s, longer than the tests wait).
     * @param ioThread the one I/O thread's provider; shut down by the caller
     * @return the client
     */
    private static LockClient freshClient(EventLoopGroupProvider ioThread) {
        return LockClient.create(LockClientOptions.builder()
                .cluster(cluster.uris())
                .commandTimeout(Duration.ofSeconds(10))
                .clientResources(DefaultClientResources.builder()
                        .eventLoopGroupProvider(ioThread)
                        .build())
                .build());
    }

    /**
     * Takes and releases a multi lock on the masters of the given names with a client of its own:
     * the JVM has then loaded what a multi lock needs, and the masters its scripts, so that a new
     * client's first calls are not a cold start's on a loaded machine.
     * @param names names on two masters
     */
    private static void warmUp(List<String> names) throws InterruptedException {
        try (LockClient warm = LockClient.create(
                LockClientOptions.builder().cluster(cluster.uris()).build())) {
            MultiLock multi = MultiLock.of(
                    warm.getLock("{" + names.get(0) + "}:warm-up"), warm.getLock("{" + names.get(1) + "}:warm-up"));
            assertThat(multi.tryLock(10, TimeUnit.SECONDS)).isTrue();
            multi.unlock();
        }
    }

    @Test
    void whenAFreshClientsMultiLockWaitsForAMemberOnAnotherMasterThenItGetsItWithinItsWait() throws Exception {
        List<String> names = namesOnEveryMaster();
        String x = names.get(0);
        String z = names.get(1);
        warmUp(names);
        // The first round takes x and is refused z: giving x back is the fresh client's first release,
        // and it is built on the I/O thread that brought the refusal.
        assertThat(bob.getLock(z).tryLock(0, 1500, TimeUnit.MILLISECONDS, RedisLock.newOwnerId()))
                .isTrue();
        EventLoopGroupProvider ioThread = new DefaultEventLoopGroupProvider(1);
        LockClient fresh = freshClient(ioThread);
        try {
            MultiLock multi = MultiLock.of(fresh.getLock(x), fresh.getLock(z));
            CompletableFuture<Long> answeredAfter = CompletableFuture.supplyAsync(() -> {
                long start = System.nanoTime();
                try {
                    boolean acquired = multi.tryLock(4, TimeUnit.SECONDS);
                    long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    if (acquired) {
                        multi.unlock();
                    }
                    return acquired ? elapsed : -elapsed;
                } catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            Long millis;
            try {
                millis = answeredAfter.get(9500, TimeUnit.MILLISECONDS);
            } catch (TimeoutException ex) {
                millis = null;
            }
            assertThat(millis)
                    .as(
                            "ms until tryLock(4 s) answered true (x held on its master: %s)",
                            cluster.masterOf(x).command("EXISTS", x))
                    .isNotNull()
                    .isBetween(0L, 4000L);
            assertThat(fresh.heldLocks()).isEmpty();
            assertThat(cluster.masterOf(x).command("EXISTS", x)).isEqualTo("0");
            assertThat(cluster.masterOf(z).command("EXISTS", z)).isEqualTo("0");
        } finally {
            fresh.close();
            ioThread.shutdown(0, 2, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void whenAFreshClientUnlocksAMultiLockFromTheCompletionOfItsAcquisitionThenEveryMemberIsReleased()
            throws Exception {
        List<String> names = namesOnEveryMaster();
        String x = names.get(0);
        String z = names.get(1);
        warmUp(names);
        EventLoopGroupProvider ioThread = new DefaultEventLoopGroupProvider(1);
        LockClient fresh = freshClient(ioThread);
        try {
            MultiLock multi = MultiLock.of(fresh.getLock(x), fresh.getLock(z));
            long owner = RedisLock.newOwnerId();
            List<String> completedOn = new CopyOnWriteArrayList<>();
            CompletableFuture<Void> released = multi.tryLockAsync(4, RedisLock.WATCHDOG_LEASE, TimeUnit.SECONDS, owner)
                    .toCompletableFuture()
                    .thenCompose(acquired -> {
                        completedOn.add(Thread.currentThread().getName());
                        assertThat(acquired).isTrue();
                        // On the thread that completed the acquisition, as a caller's continuation runs.
                        return multi.unlockAsync(owner).toCompletableFuture();
                    });
            assertThat(released)
                    .as("unlockAsync from the completion (on %s)", completedOn)
                    .succeedsWithin(Duration.ofSeconds(8));
            assertThat(fresh.heldLocks()).isEmpty();
            assertThat(cluster.masterOf(x).command("EXISTS", x)).isEqualTo("0");
            assertThat(cluster.masterOf(z).command("EXISTS", z)).isEqualTo("0");
        } finally {
            fresh.close();
            ioThread.shutdown(0, 2, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
        }
    }

    /** @return the scripts every master ran so far ({@code EVALSHA} and {@code EVAL} calls) */
    private static long scriptsRun() {
        return cluster.masters().stream()
                .flatMap(master -> master.command("INFO", "commandstats").lines())
                .filter(line -> line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:"))
                .mapToLong(line -> {
                    int calls = line.indexOf("calls=") + "calls=".length();
                    return Long.parseLong(line.substring(calls, line.indexOf(',', calls)));
                })
                .sum();
    }

    @Test
    void whenSlotMovedToAnotherMasterThenClientFollowsTheRedirect() throws Exception {
        String name = namesOnEveryMaster().get(0);
        int slot = io.lettuce.core.cluster.SlotHash.getSlot(name);
        RedisLock lock = alice.getLock(name);
        // Use the slot once so that the client's cached topology names master 0 for it.
        assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
        RedisServer from = cluster.masters().get(0);
        RedisServer to = cluster.masters().get(1);
        cluster.moveEmptySlot(slot, to);
        try {
            assertThat(from.command("EXISTS", name)).startsWith("MOVED " + slot);
            assertThat(lock.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
            assertThat(to.command("EXISTS", name)).isEqualTo("1");
            lock.unlock();
            assertThat(to.command("EXISTS", name)).isEqualTo("0");
        } finally {
            cluster.moveEmptySlot(slot, from);
        }
    }
}
