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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The asynchronous API of {@link RedLock}, over three masters. */
class RedLockAsyncTests {

    private List<RedisServer> servers;
    private final List<LockClient> clients = new ArrayList<>();
    private final String name = "red-async-" + UUID.randomUUID();

    @BeforeEach
    void startMasters() {
        servers = RedisServers.start(3);
        for (RedisServer server : servers) {
            clients.add(LockClient.create(server.uri()));
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
                .filter(s -> s.command("EXISTS", name).equals("1"))
                .count();
    }

    private boolean nothingHeld() {
        return clients.stream().allMatch(client -> client.heldLocks().isEmpty());
    }

    @Test
    void whenAcquiredAsynchronouslyThenEveryMasterGrantsAndIsReleased() throws Exception {
        RedLock lock = redLock();
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLockAsync(1, 10, TimeUnit.SECONDS, owner)
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS))
                .isTrue();
        assertThat(keysLeft()).isEqualTo(3);
        assertThat(lock.isHeldBy(owner)).isTrue();
        assertThat(redLock()
                        .tryLockAsync(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId())
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS))
                .isFalse();
        lock.unlockAsync(owner).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(keysLeft()).isZero();
        assertThat(nothingHeld()).isTrue();
    }

    @Test
    void whenNoMasterHoldsItThenUnlockAsyncFailsWithIllegalMonitorState() {
        CompletableFuture<Void> unlocked =
                redLock().unlockAsync(RedisLock.newOwnerId()).toCompletableFuture();
        await().atMost(Duration.ofSeconds(10)).until(unlocked::isDone);
        assertThat(unlocked).isCompletedExceptionally();
        assertThat(unlocked.handle((ok, failure) -> failure.getCause()).join())
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("none of its");
    }

    @Test
    void whenContendedAsyncWaitersThenEachAcquiresInTurnAndHoldsItAlone() throws Exception {
        RedLock lock = redLock();
        long holder = RedisLock.newOwnerId();
        assertThat(lock.tryLock(1, 30, TimeUnit.SECONDS, holder)).isTrue();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            long owner = RedisLock.newOwnerId();
            waiters.add(lock.lockAsync(10, TimeUnit.SECONDS, owner)
                    .thenCompose(locked -> {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        inside.decrementAndGet();
                        return lock.unlockAsync(owner);
                    })
                    .toCompletableFuture());
        }
        assertThat(waiters).noneMatch(CompletableFuture::isDone);
        lock.unlock(holder);
        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertThat(overlaps).hasValue(0);
        assertThat(keysLeft()).isZero();
    }

    @Test
    void whenAWaitingAcquisitionIsCancelledThenNoMasterKeepsAGrant() throws Exception {
        RedLock lock = redLock();
        long holder = RedisLock.newOwnerId();
        assertThat(lock.tryLock(1, 30, TimeUnit.SECONDS, holder)).isTrue();
        long owner = RedisLock.newOwnerId();
        CompletableFuture<Boolean> waiting =
                lock.tryLockAsync(30, 10, TimeUnit.SECONDS, owner).toCompletableFuture();
        // Let it go through a few refused rounds first.
        await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !waiting.isDone());
        assertThat(waiting.cancel(false)).isTrue();
        lock.unlock(holder);
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(5))
                .until(() -> keysLeft() == 0 && nothingHeld());
    }

    @Test
    void whenAcquisitionsAreCancelledRightAfterStartingThenNoGrantIsKept() throws Exception {
        RedLock lock = redLock();
        // Cancelled while their first round is under way, or just after winning it.
        for (int i = 0; i < 20; i++) {
            long owner = RedisLock.newOwnerId();
            CompletableFuture<Boolean> acquisition =
                    lock.tryLockAsync(5, 10, TimeUnit.SECONDS, owner).toCompletableFuture();
            if (!acquisition.cancel(false)) {
                assertThat(acquisition.join()).isTrue();
                lock.unlock(owner);
            }
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> keysLeft() == 0 && nothingHeld());
    }
}
