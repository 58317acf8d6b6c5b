package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RedLockTests {

    private List<RedisServer> servers;
    private final List<LockClient> clients = new ArrayList<>();
    private final String name = "red-" + UUID.randomUUID();

    @BeforeEach
    void startMasters() {
        servers = RedisServers.start(5);
        for (RedisServer server : servers) {
            clients.add(LockClient.create(
                    LockClientOptions.builder().uri(server.uri()).build()));
        }
    }

    @AfterEach
    void stopMasters() {
        clients.forEach(LockClient::close);
        servers.forEach(RedisServer::stop);
    }

    private RedLock redLock() {
        return RedLock.of(clients.stream().map(c -> c.getLock(name)).toArray(RedisLock[]::new));
    }

    private long keysLeft() {
        return servers.stream()
                .filter(RedisServer::isRunning)
                .filter(s -> s.command("EXISTS", name).equals("1"))
                .count();
    }

    @Test
    void whenEveryMasterIsUpThenEachGrantsTheLockAndAnotherOwnerIsExcluded() throws Exception {
        RedLock lock = redLock();
        assertThat(lock.getQuorum()).isEqualTo(3);
        assertThat(lock.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
        assertThat(keysLeft()).isEqualTo(5);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.remainTimeToLive()).isBetween(1L, 10_000L);
        long stranger = RedisLock.newOwnerId();
        assertThat(redLock().tryLock(300, 10_000, TimeUnit.MILLISECONDS, stranger))
                .isFalse();
        lock.unlock();
        assertThat(keysLeft()).isZero();
        assertThat(redLock().tryLock(0, 10_000, TimeUnit.MILLISECONDS, stranger))
                .isTrue();
        redLock().unlock(stranger);
    }

    @Test
    void whenTwoMastersAreDownThenQuorumStillGrantsTheLock() throws Exception {
        servers.get(1).stop();
        servers.get(3).stop();
        RedLock lock = redLock();
        assertThat(lock.tryLock(2, 10, TimeUnit.SECONDS)).isTrue();
        assertThat(keysLeft()).isEqualTo(3);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertThat(keysLeft()).isZero();
    }

    @Test
    void whenThreeMastersAreDownThenFailsAndLeavesNoKeys() throws Exception {
        servers.get(0).stop();
        servers.get(2).stop();
        servers.get(4).stop();
        RedLock lock = redLock();
        long start = System.nanoTime();
        assertThat(lock.tryLock(1, 10, TimeUnit.SECONDS)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(keysLeft()).isZero();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("none of its");
    }

    @Test
    void whenAMajorityIsHeldByAnotherOwnerThenFailsAndReleasesItsMinority() throws Exception {
        long stranger = RedisLock.newOwnerId();
        for (int i = 0; i < 3; i++) {
            assertThat(clients.get(i).getLock(name).tryLock(0, 30, TimeUnit.SECONDS, stranger))
                    .isTrue();
        }
        assertThat(redLock().tryLock(500, 10_000, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(servers.get(3).command("EXISTS", name)).isEqualTo("0");
        assertThat(servers.get(4).command("EXISTS", name)).isEqualTo("0");
        assertThat(keysLeft()).isEqualTo(3);
    }

    @Test
    void whenValidityIsSpentByDriftAllowanceThenFailsAndLeavesNoKeys() throws Exception {
        // A 1 ms lease is shorter than the 2 ms drift allowance: no validity can remain.
        assertThat(RedLock.driftAllowanceMillis(1)).isEqualTo(2);
        assertThat(RedLock.driftAllowanceMillis(30_000)).isEqualTo(302);
        assertThat(redLock().tryLock(0, 1, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(keysLeft()).isZero();
    }

    @Test
    void whenAMasterIsDownAtUnlockThenTheOthersAreStillReleased() throws Exception {
        RedLock lock = redLock();
        assertThat(lock.tryLock(1, 30, TimeUnit.SECONDS)).isTrue();
        servers.get(2).stop();
        lock.unlock();
        assertThat(keysLeft()).isZero();
    }
}
