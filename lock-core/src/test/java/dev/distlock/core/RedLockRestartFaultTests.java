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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A red lock over three masters held with the watchdog lease while masters restart without
 * persistence: a master that lost the hold is taken again at the next renewal round while a
 * majority still holds it, and a lock left with fewer than a majority reports its lost lease.
 */
@Tag("fault")
class RedLockRestartFaultTests {

    /** A renewal round every second. */
    private static final Duration WATCHDOG = Duration.ofSeconds(3);

    private static final Duration BOUND = Duration.ofSeconds(15);

    private List<RedisServer> servers;
    private final List<LockClient> clients = new ArrayList<>();
    private final List<String> lost = new CopyOnWriteArrayList<>();
    private final List<String> viewLost = new CopyOnWriteArrayList<>();
    private final String name = "red-restart-" + UUID.randomUUID();

    @BeforeEach
    void startMasters() {
        servers = RedisServers.start(3);
    }

    @AfterEach
    void stopMasters() {
        clients.forEach(LockClient::close);
        servers.forEach(RedisServer::stop);
    }

    /** One listener given to every client, and one to the red lock view: each must hear a loss once. */
    private RedLock redLock(Duration reconnectDelay) {
        LockListener recorder = new LockListener() {
            @Override
            public void onLeaseLost(String lockName, long ownerId) {
                lost.add(lockName + "/" + ownerId);
            }
        };
        for (RedisServer server : servers) {
            clients.add(LockClient.create(LockClientOptions.builder()
                    .uri(server.uri())
                    .watchdogTimeout(WATCHDOG)
                    .commandTimeout(Duration.ofMillis(500))
                    .reconnectDelay(reconnectDelay, reconnectDelay.multipliedBy(2))
                    .listener(recorder)
                    .build()));
        }
        // Connected, with the lock scripts loaded, before the red lock is taken: a cold first call can outlast
        // the 500 ms command timeout on a loaded machine, and the lock then starts on two masters, not three.
        for (LockClient client : clients) {
            await().atMost(BOUND).ignoreExceptions().until(() -> {
                long owner = RedisLock.newOwnerId();
                RedisLock warm = client.getLock(name + ":warm:" + owner);
                boolean taken = warm.tryLock(0, 30, TimeUnit.SECONDS, owner);
                warm.unlock(owner);
                return taken;
            });
        }
        return RedLock.of(clients.stream().map(c -> c.getLock(name)).toArray(RedisLock[]::new))
                .withListener(new LockListener() {
                    @Override
                    public void onLeaseLost(String lockName, long ownerId) {
                        viewLost.add(lockName + "/" + ownerId);
                    }
                });
    }

    private RedLock redLock() {
        return redLock(Duration.ofMillis(10));
    }

    /** @return the owner field client {@code i} writes for the owner, read from its master */
    private String field(int i, long owner) {
        String fields = servers.get(i).command("HKEYS", name);
        assertThat(fields).as("owner field on master %d", i).endsWith(":" + owner);
        return fields.trim();
    }

    private void awaitHeldAgain(int i, String field) {
        await("master " + i + " taken again").atMost(BOUND).untilAsserted(() -> assertThat(
                        servers.get(i).command("HGET", name, field))
                .as("hold count of the owner on restarted master %d", i)
                .isEqualTo("1"));
        assertThat(Long.parseLong(servers.get(i).command("PTTL", name)))
                .as("lease of the hold taken again on master %d", i)
                .isPositive();
    }

    @Test
    void whenOneMasterRestartsEmptyThenTheNextRenewalTakesItAgain() throws Exception {
        RedLock lock = redLock();
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(5, -1, TimeUnit.SECONDS, owner)).isTrue();
        String field = field(0, owner);

        servers.get(0).restart();

        awaitHeldAgain(0, field);
        assertThat(lock.isHeldBy(owner)).isTrue();
        assertThat(lost).doesNotContain(lock.getName() + "/" + owner);
        lock.unlock(owner);
        for (RedisServer server : servers) {
            assertThat(server.command("EXISTS", name)).isEqualTo("0");
        }
    }

    @Test
    void whenASecondMasterRestartsAfterTheFirstWasTakenAgainThenTheLockKeepsItsMajority() throws Exception {
        RedLock lock = redLock();
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(5, -1, TimeUnit.SECONDS, owner)).isTrue();
        String first = field(0, owner);
        String second = field(1, owner);

        servers.get(0).restart();
        awaitHeldAgain(0, first);
        servers.get(1).restart();

        assertThat(lock.isHeldBy(owner)).as("held on two of three masters").isTrue();
        awaitHeldAgain(1, second);
        assertThat(lock.isHeldBy(owner)).isTrue();
        assertThat(lost).doesNotContain(lock.getName() + "/" + owner);
        assertThat(viewLost).doesNotContain(lock.getName() + "/" + owner);
        lock.unlock(owner);
        for (RedisServer server : servers) {
            assertThat(server.command("EXISTS", name)).isEqualTo("0");
        }
    }

    @Test
    void whenTwoMastersRestartEmptyBeforeARenewalThenTheLeaseIsReportedLost() throws Exception {
        RedLock lock = redLock();
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(5, -1, TimeUnit.SECONDS, owner)).isTrue();
        String event = lock.getName() + "/" + owner;

        // Both down before either comes back: no round can see a majority that would take one again.
        servers.get(0).stop();
        servers.get(1).stop();
        servers.get(0).start();
        servers.get(1).start();

        await("lease of the red lock reported lost").atMost(BOUND).until(() -> lost.contains(event));
        assertThat(lost).as("told once, not once per master").containsOnlyOnce(event);
        assertThat(viewLost).containsOnlyOnce(event);
        assertThat(servers.get(0).command("EXISTS", name)).as("not taken again").isEqualTo("0");
        assertThat(servers.get(1).command("EXISTS", name)).as("not taken again").isEqualTo("0");
        assertThat(lock.isHeldBy(owner)).isFalse();
        assertThatThrownBy(() -> lock.unlock(owner))
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("lease was lost");
        assertThat(servers.get(2).command("EXISTS", name))
                .as("the hold left on the third master")
                .isEqualTo("0");
    }

    @Test
    void whenTwoMastersRestartEmptyDuringAnExplicitLeaseThenUnlockReportsTheLostLease() throws Exception {
        RedLock lock = redLock();
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(5, 30, TimeUnit.SECONDS, owner)).isTrue();

        servers.get(0).restart();
        servers.get(1).restart();
        // Reconnected: a call written before a client saw its connection drop would fail as in flight.
        for (LockClient client : clients) {
            await().atMost(BOUND).ignoreExceptions().until(() -> client.ping() != null);
        }

        assertThat(lock.isHeldBy(owner)).isFalse();
        assertThatThrownBy(() -> lock.unlock(owner))
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("lease was lost");
        assertThat(servers.get(2).command("EXISTS", name))
                .as("the hold left on the third master, released")
                .isEqualTo("0");
    }

    @Test
    void whenAnotherOwnerTookARestartedMasterThenItIsTakenAgainOnlyOnceThatOwnerUnlocks() throws Exception {
        // Our clients reconnect 2 s after the restart, so the other client takes the master first.
        RedLock lock = redLock(Duration.ofSeconds(2));
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(5, -1, TimeUnit.SECONDS, owner)).isTrue();
        String ours = field(0, owner);
        long otherOwner = RedisLock.newOwnerId();

        // Connected before the restart, so that it is back (and takes the master) well before our clients.
        LockClient other = LockClient.create(servers.get(0).uri());
        clients.add(other);
        other.ping();
        servers.get(0).restart();
        RedisLock otherLock = other.getLock(name);
        await().atMost(BOUND).ignoreExceptions().until(() -> otherLock.tryLock(0, 30, TimeUnit.SECONDS, otherOwner));
        String theirs = field(0, otherOwner);

        // Several renewal rounds after our client is back: the other owner keeps its hold there.
        await().pollDelay(Duration.ofSeconds(5)).atMost(BOUND).untilAsserted(() -> assertThat(
                        servers.get(0).command("HKEYS", name))
                .isEqualTo(theirs));
        assertThat(servers.get(0).command("HGET", name, theirs)).isEqualTo("1");
        assertThat(lock.isHeldBy(owner)).as("held on two of three masters").isTrue();
        assertThat(lost).doesNotContain(lock.getName() + "/" + owner);

        otherLock.unlock(otherOwner);
        awaitHeldAgain(0, ours);
        assertThat(lock.isHeldBy(owner)).isTrue();
        lock.unlock(owner);
        for (RedisServer server : servers) {
            assertThat(server.command("EXISTS", name)).isEqualTo("0");
        }
    }

    @Test
    void whenAnotherOwnerHoldsARestartedMasterAndASecondMasterRestartsThenTheLeaseIsReportedLost() throws Exception {
        RedLock lock = redLock(Duration.ofSeconds(2));
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(5, -1, TimeUnit.SECONDS, owner)).isTrue();
        String event = lock.getName() + "/" + owner;
        long otherOwner = RedisLock.newOwnerId();

        // Connected before the restart, so that it is back (and takes the master) well before our clients.
        LockClient other = LockClient.create(servers.get(0).uri());
        clients.add(other);
        other.ping();
        servers.get(0).restart();
        RedisLock otherLock = other.getLock(name);
        await().atMost(BOUND).ignoreExceptions().until(() -> otherLock.tryLock(0, 60, TimeUnit.SECONDS, otherOwner));
        String theirs = field(0, otherOwner);
        servers.get(1).restart();

        await("lease of the red lock reported lost").atMost(BOUND).until(() -> lost.contains(event));
        assertThat(lost).containsOnlyOnce(event);
        assertThat(lock.isHeldBy(owner)).isFalse();
        assertThatThrownBy(() -> lock.unlock(owner))
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("lease was lost");
        assertThat(servers.get(0).command("HKEYS", name))
                .as("the other owner's hold, untouched")
                .isEqualTo(theirs);
        assertThat(otherLock.isHeldBy(otherOwner)).isTrue();
        otherLock.unlock(otherOwner);
    }
}
