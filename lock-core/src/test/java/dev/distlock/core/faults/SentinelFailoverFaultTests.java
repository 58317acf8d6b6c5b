package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockListener;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisSentinelGroup;
import dev.distlock.core.test.RedisServer;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The master of a Sentinel group is killed while a client holds locks, and the replica is
 * promoted. What the holder, and a second client, see afterwards is what the README's "Failure
 * modes" table documents; each test prints the measured times with {@code [fault]}.
 */
@Tag("fault")
class SentinelFailoverFaultTests {

    private static final Duration SHORT_WATCHDOG = Duration.ofSeconds(2);

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

    private final Map<String, Long> lostAt = new ConcurrentHashMap<>();

    private final String run = UUID.randomUUID().toString();

    @Test
    @Timeout(value = 40, unit = TimeUnit.SECONDS)
    void whenFailoverWithoutReplicaSyncThenAReplicatedHoldSurvivesAndAWatchdogHoldIsKeptOrReportedLost()
            throws Exception {
        try (RedisSentinelGroup group = RedisSentinelGroup.start();
                LockClient holder = connect(group, LockClientOptions.builder().watchdogTimeout(SHORT_WATCHDOG));
                LockClient other = connect(group, LockClientOptions.builder())) {
            String watched = "failover-watchdog-" + run;
            String leased = "failover-lease-" + run;
            long owner = RedisLock.newOwnerId();
            long rival = RedisLock.newOwnerId();
            assertThat(holder.getLock(watched).tryLock(0, RedisLock.WATCHDOG_LEASE, TimeUnit.SECONDS, owner))
                    .isTrue();
            assertThat(holder.getLock(leased).tryLock(0, 30, TimeUnit.SECONDS, owner))
                    .isTrue();
            // Deterministic replication: the replica has processed everything the master wrote so far.
            long written = replicationOffset(group.master());
            await().atMost(Duration.ofSeconds(5)).until(() -> replicationOffset(group.replica()) >= written);
            assertThat(group.replica().command("EXISTS", watched, leased)).isEqualTo("2");

            long killedAt = System.nanoTime();
            group.master().stop();
            awaitPromotion(group, killedAt);
            long holderBack = awaitWritable(holder, killedAt);
            awaitWritable(other, killedAt);

            // The lease hold had replicated: it lives on in the new master and excludes the other client.
            assertThat(holder.getLock(leased).isHeldBy(owner)).isTrue();
            assertThat(other.getLock(leased).tryLock(0, 5, TimeUnit.SECONDS, rival))
                    .isFalse();

            // The watchdog hold: either renewed on the new master, or reported lost. Never silently wrong.
            long settleAfter = killedAt + TimeUnit.MILLISECONDS.toNanos(holderBack) + SHORT_WATCHDOG.toNanos();
            RedisLock watchedByHolder = holder.getLock(watched);
            await().atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> lostAt.containsKey(watched)
                            || System.nanoTime() > settleAfter && watchedByHolder.isHeldBy(owner));
            if (lostAt.containsKey(watched)) {
                long lostMillis = TimeUnit.NANOSECONDS.toMillis(lostAt.get(watched) - killedAt);
                // Told within a few renewal rounds of reaching the new master, not silently later.
                assertThat(lostMillis).isLessThan(holderBack + 2 * SHORT_WATCHDOG.toMillis());
                assertThat(watchedByHolder.isHeldBy(owner)).isFalse();
                assertThat(holder.heldLocks()).noneMatch(held -> held.name().equals(watched));
                assertThat(other.getLock(watched).tryLock(0, 5, TimeUnit.SECONDS, rival))
                        .isTrue();
                assertThatThrownBy(() -> watchedByHolder.unlock(owner))
                        .isInstanceOf(IllegalMonitorStateException.class);
                other.getLock(watched).unlock(rival);
            } else {
                assertThat(Long.parseLong(group.replica().command("PTTL", watched)))
                        .isPositive();
                assertThat(other.getLock(watched).tryLock(0, 5, TimeUnit.SECONDS, rival))
                        .isFalse();
                watchedByHolder.unlock(owner);
            }
            holder.getLock(leased).unlock(owner);
            assertThat(other.getLock(leased).tryLock(0, 5, TimeUnit.SECONDS, rival))
                    .isTrue();
            other.getLock(leased).unlock(rival);
        }
    }

    @Test
    @Timeout(value = 40, unit = TimeUnit.SECONDS)
    void whenFailoverWithReplicaSyncThenEveryHoldSurvivesThePromotionAndStillExcludes() throws Exception {
        Duration watchdog = Duration.ofSeconds(15);
        try (RedisSentinelGroup group = RedisSentinelGroup.start();
                LockClient holder = connect(
                        group,
                        LockClientOptions.builder().watchdogTimeout(watchdog).replicaSync(1, Duration.ofMillis(500)));
                LockClient other = connect(group, LockClientOptions.builder())) {
            String watched = "guarded-watchdog-" + run;
            String leased = "guarded-lease-" + run;
            long owner = RedisLock.newOwnerId();
            long rival = RedisLock.newOwnerId();
            assertThat(holder.getLock(watched).tryLock(0, RedisLock.WATCHDOG_LEASE, TimeUnit.SECONDS, owner))
                    .isTrue();
            assertThat(group.replica().command("EXISTS", watched))
                    .as("acknowledged before tryLock returned")
                    .isEqualTo("1");
            assertThat(holder.getLock(leased).tryLock(0, 30, TimeUnit.SECONDS, owner))
                    .isTrue();
            assertThat(group.replica().command("EXISTS", leased))
                    .as("acknowledged before tryLock returned")
                    .isEqualTo("1");

            long killedAt = System.nanoTime();
            group.master().stop();
            awaitPromotion(group, killedAt);
            awaitWritable(other, killedAt);
            // The holder cannot probe with a write: with no replica left, its guard refuses new acquisitions.
            awaitReachable(holder, killedAt);

            for (String name : new String[] {watched, leased}) {
                assertThat(other.getLock(name).tryLock(0, 5, TimeUnit.SECONDS, rival))
                        .as(name + " still excludes")
                        .isFalse();
                assertThat(holder.getLock(name).isHeldBy(owner))
                        .as(name + " still held")
                        .isTrue();
            }
            // The watchdog renews the hold on the new master: its lease is topped up again.
            await().atMost(watchdog)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() ->
                            Long.parseLong(group.replica().command("PTTL", watched)) > watchdog.toMillis() * 3 / 4);
            assertThat(lostAt).isEmpty();
            holder.getLock(watched).unlock(owner);
            holder.getLock(leased).unlock(owner);
            for (String name : new String[] {watched, leased}) {
                assertThat(other.getLock(name).tryLock(0, 5, TimeUnit.SECONDS, rival))
                        .isTrue();
                other.getLock(name).unlock(rival);
            }
        }
    }

    private LockClient connect(RedisSentinelGroup group, LockClientOptions.Builder options) {
        return LockClient.create(options.sentinel(RedisSentinelGroup.MASTER_ID, group.sentinelUris())
                .commandTimeout(COMMAND_TIMEOUT)
                .listener(new LockListener() {
                    @Override
                    public void onLeaseLost(String lockName, long ownerId) {
                        lostAt.putIfAbsent(lockName, System.nanoTime());
                    }
                })
                .build());
    }

    /** @return ms from the kill until the sentinels name the replica as master */
    private static long awaitPromotion(RedisSentinelGroup group, long killedAt) {
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> group.currentMasterPort() == group.replica().port());
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
    }

    /** @return ms from the kill until the client can take (and release) a lock on the new master */
    private long awaitWritable(LockClient client, long killedAt) {
        RedisLock probe = client.getLock("probe-" + run + "-" + client.getId());
        long owner = RedisLock.newOwnerId();
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    try {
                        return probe.tryLock(0, 5, TimeUnit.SECONDS, owner);
                    } catch (LockException stillFailingOver) {
                        return false;
                    }
                });
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        probe.unlock(owner);
        return millis;
    }

    /** @return ms from the kill until the client's connection answers again */
    private static long awaitReachable(LockClient client, long killedAt) {
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    try {
                        client.ping();
                        return true;
                    } catch (LockException stillFailingOver) {
                        return false;
                    }
                });
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
    }

    private static long replicationOffset(RedisServer server) {
        for (String line : server.command("INFO", "replication").split("\r?\n")) {
            if (line.startsWith("master_repl_offset:")) {
                return Long.parseLong(
                        line.substring("master_repl_offset:".length()).trim());
            }
        }
        throw new IllegalStateException("INFO replication of " + server.uri() + " has no master_repl_offset");
    }
}
