package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Red locks over three masters of which some are frozen (SIGSTOP). */
@Tag("fault")
class RedLockFaultTests {

    private List<RedisServer> servers;
    private final List<LockClient> clients = new ArrayList<>();
    private final String name = "red-fault-" + UUID.randomUUID();

    @BeforeEach
    void startMasters() {
        servers = RedisServers.start(3);
    }

    @AfterEach
    void stopMasters() {
        servers.forEach(server -> {
            if (server.isRunning()) {
                server.resume();
            }
        });
        clients.forEach(LockClient::close);
        servers.forEach(RedisServer::stop);
    }

    private RedLock redLock(LockClientOptions.Builder options) {
        for (RedisServer server : servers) {
            clients.add(LockClient.create(options.uri(server.uri()).build()));
        }
        return RedLock.of(clients.stream().map(c -> c.getLock(name)).toArray(RedisLock[]::new));
    }

    /** Connections opened and scripts loaded, so that the time measured is the frozen master's alone. */
    private static void warm(RedLock lock) throws InterruptedException {
        assertThat(lock.tryLock(10, 3, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
    }

    private static String count(RedisServer server, String name) {
        return server.command("HVALS", name).trim();
    }

    @Test
    void whenAReentryRoundFailsItsQuorumThenTheOuterHoldStaysHeldAndRenewedEverywhere() throws Exception {
        RedLock lock = redLock(LockClientOptions.builder()
                .commandTimeout(Duration.ofMillis(500))
                .watchdogTimeout(Duration.ofSeconds(2)));
        long owner = RedisLock.newOwnerId();
        // Connections opened and scripts loaded first, so that every master answers the outer round in time.
        assertThat(lock.tryLock(5, -1, TimeUnit.SECONDS, owner)).isTrue();
        lock.unlock(owner);
        assertThat(lock.tryLock(5, -1, TimeUnit.SECONDS, owner)).isTrue();
        for (int i = 0; i < servers.size(); i++) {
            assertThat(count(servers.get(i), name))
                    .as("outer hold count on master %d", i)
                    .isEqualTo("1");
        }
        servers.get(1).pause();
        servers.get(2).pause();
        try {
            assertThat(lock.tryLock(0, -1, TimeUnit.SECONDS, owner)).isFalse();
        } finally {
            servers.get(1).resume();
            servers.get(2).resume();
        }
        assertThat(count(servers.get(0), name))
                .as("hold count on the healthy master")
                .isEqualTo("1");
        // Several watchdog timeouts: the outer hold must still be renewed on every master.
        await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(8)).untilAsserted(() -> {
            for (int i = 0; i < servers.size(); i++) {
                assertThat(servers.get(i).command("EXISTS", name))
                        .as("outer hold on master %d", i)
                        .isEqualTo("1");
            }
        });
        assertThat(count(servers.get(0), name))
                .as("hold count on the healthy master")
                .isEqualTo("1");
        assertThat(lock.isHeldBy(owner)).isTrue();
        lock.unlock(owner);
        for (RedisServer server : servers) {
            assertThat(server.command("EXISTS", name)).isEqualTo("0");
        }
    }

    @Test
    void whenOneMasterOfThreeIsFrozenThenTryLockSucceedsQuickly() throws Exception {
        RedLock lock = redLock(LockClientOptions.builder());
        warm(lock);
        servers.get(1).pause();
        long start = System.nanoTime();
        boolean acquired = lock.tryLock(10, 3, TimeUnit.SECONDS);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(acquired)
                .as("acquired with one of three masters frozen (after %s)", took)
                .isTrue();
        assertThat(took).as("time to acquire").isLessThan(Duration.ofMillis(2000));
        assertThat(servers.get(0).command("EXISTS", name)).isEqualTo("1");
        assertThat(servers.get(2).command("EXISTS", name)).isEqualTo("1");
        lock.unlock();
        assertThat(servers.get(0).command("EXISTS", name)).isEqualTo("0");
        assertThat(servers.get(2).command("EXISTS", name)).isEqualTo("0");
    }

    @Test
    void whenOneMasterOfThreeIsFrozenThenTryLockAsyncSucceedsQuicklyAndUnlockAsyncReleasesTheOthers() throws Exception {
        RedLock lock = redLock(LockClientOptions.builder());
        long owner = RedisLock.newOwnerId();
        warm(lock);
        servers.get(1).pause();
        long start = System.nanoTime();
        CompletableFuture<Boolean> acquisition =
                lock.tryLockAsync(10, 3, TimeUnit.SECONDS, owner).toCompletableFuture();
        boolean acquired = acquisition.get(10, TimeUnit.SECONDS);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(acquired)
                .as("acquired with one of three masters frozen (after %s)", took)
                .isTrue();
        assertThat(took).as("time to acquire").isLessThan(Duration.ofMillis(2000));
        assertThat(servers.get(0).command("EXISTS", name)).isEqualTo("1");
        assertThat(servers.get(2).command("EXISTS", name)).isEqualTo("1");
        lock.unlockAsync(owner).toCompletableFuture().get(20, TimeUnit.SECONDS);
        assertThat(servers.get(0).command("EXISTS", name)).isEqualTo("0");
        assertThat(servers.get(2).command("EXISTS", name)).isEqualTo("0");
    }

    @Test
    void whenAFrozenMasterGrantsAfterTheRoundThenThatLateGrantIsReleased() throws Exception {
        RedLock lock = redLock(LockClientOptions.builder().commandTimeout(Duration.ofSeconds(5)));
        long owner = RedisLock.newOwnerId();
        servers.get(2).pause();
        try {
            assertThat(lock.tryLock(10, 30, TimeUnit.SECONDS, owner)).isTrue();
        } finally {
            // Within the command timeout: the queued acquire script now runs and its reply arrives.
            servers.get(2).resume();
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(servers.get(2).command("EXISTS", name))
                    .as("late grant on the resumed master")
                    .isEqualTo("0");
            assertThat(clients.get(2).heldLocks()).noneMatch(held -> held.name().equals(name));
        });
        assertThat(lock.isHeldBy(owner)).isTrue();
        lock.unlock(owner);
        for (RedisServer server : servers) {
            assertThat(server.command("EXISTS", name)).isEqualTo("0");
        }
    }

    @Test
    void whenTwoMastersAreFrozenThenInspectingAndUnlockingCostOneCommandTimeoutNotOnePerMaster() throws Exception {
        RedLock lock = redLock(LockClientOptions.builder().commandTimeout(Duration.ofSeconds(2)));
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(5, 30, TimeUnit.SECONDS, owner)).isTrue();
        servers.get(0).pause();
        servers.get(2).pause();
        // A query costs one command timeout (2 s) per frozen master asked in turn: 4 s for two.
        Duration bound = Duration.ofMillis(3000);
        long start = System.nanoTime();
        assertThat(lock.isHeldBy(owner)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("isHeldBy").isLessThan(bound);
        start = System.nanoTime();
        assertThat(lock.remainTimeToLive()).isEqualTo(-2);
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("remainTimeToLive")
                .isLessThan(bound);
        start = System.nanoTime();
        lock.unlock(owner);
        // An unlock whose reply is missing is retried once: two command timeouts per frozen master.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("unlock").isLessThan(bound.multipliedBy(2));
        assertThat(servers.get(1).command("EXISTS", name)).isEqualTo("0");
    }

    @Test
    void whenTwoMastersOfThreeAreFrozenThenTryLockGivesUpWhenItsWaitEnds() throws Exception {
        RedLock lock = redLock(LockClientOptions.builder());
        servers.get(0).pause();
        servers.get(2).pause();
        long start = System.nanoTime();
        boolean acquired = lock.tryLock(3, 3, TimeUnit.SECONDS);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(acquired).isFalse();
        assertThat(took).as("time to give up").isBetween(Duration.ofMillis(2900), Duration.ofMillis(5000));
        assertThat(servers.get(1).command("EXISTS", name))
                .as("no grant left on the healthy master")
                .isEqualTo("0");
    }
}
