package dev.distlock.core.internal.acquire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.kind.ReentrantRedisLock;
import dev.distlock.core.internal.pubsub.ChannelWaiters;
import dev.distlock.core.nonblocking.IoThreadsMustNotBlock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The neighbours of cancellation: calls of one owner that overlap, a wake-up that meets a cancel,
 * and an unlock that meets a re-entry. Each drives the engine into the interleaving it names.
 */
class AcquisitionRaceTests {

    private RedisServer redis;
    private final List<LockEngine> engines = new ArrayList<>();
    private String name;

    @BeforeEach
    void setUp() {
        redis = RedisServers.shared();
        name = "race:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        engines.forEach(LockEngine::close);
    }

    private LockEngine engine(Duration watchdog) {
        LockEngine engine = new LockEngine(LockClientOptions.builder()
                .uri(redis.uri())
                .watchdogTimeout(watchdog)
                .build());
        engines.add(engine);
        return engine;
    }

    @Test
    void whenOneOwnerAcquiresTwiceAtOnceThenRedisCountsEveryGrant() throws Exception {
        LockEngine engine = engine(Duration.ofSeconds(30));
        ReentrantRedisLock lock = new ReentrantRedisLock(engine, name);
        assertThat(lock.isLocked()).isFalse();
        for (int i = 0; i < 20; i++) {
            long owner = RedisLock.newOwnerId();
            CompletableFuture<Boolean> first =
                    lock.tryLockAsync(0, 30, TimeUnit.SECONDS, owner).toCompletableFuture();
            CompletableFuture<Boolean> second =
                    lock.tryLockAsync(0, 30, TimeUnit.SECONDS, owner).toCompletableFuture();
            int grants = (first.get(10, TimeUnit.SECONDS) ? 1 : 0) + (second.get(10, TimeUnit.SECONDS) ? 1 : 0);
            String counted = redis.command("HGET", name, engine.ownerField(owner));
            assertThat(counted.isEmpty() ? 0 : Integer.parseInt(counted))
                    .as("holds Redis counts for %d grants", grants)
                    .isEqualTo(grants);
            for (int g = 0; g < grants; g++) {
                lock.unlock(owner);
            }
            assertThat(lock.isLocked()).isFalse();
        }
        assertThat(engine.holds().snapshot()).isEmpty();
    }

    @Test
    void whenAWokenWaiterIsCancelledThenTheWakeupGoesToTheNextWaiter() throws Exception {
        LockEngine holderEngine = engine(Duration.ofSeconds(30));
        LockEngine waiterEngine = engine(Duration.ofSeconds(30));
        ReentrantRedisLock holder = new ReentrantRedisLock(holderEngine, name);
        long holderId = RedisLock.newOwnerId();
        assertThat(holder.tryLock(0, 30, TimeUnit.SECONDS, holderId)).isTrue();
        ReentrantRedisLock waiter = new ReentrantRedisLock(waiterEngine, name);
        SingleKeyAcquisition first = new SingleKeyAcquisition(waiter, 30_000, 30_000, RedisLock.newOwnerId());
        CompletableFuture<Boolean> firstResult = first.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiterEngine.parkedWaiters() == 1);
        long secondId = RedisLock.newOwnerId();
        CompletableFuture<Boolean> second =
                waiter.tryLockAsync(30, 30, TimeUnit.SECONDS, secondId).toCompletableFuture();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiterEngine.parkedWaiters() == 2);
        // The first waiter's caller cancels at the very moment its wake-up arrives: run the cancel as the
        // first thing the wake-up completes (dependents run latest first), before the waiter resumes.
        CompletableFuture<?> park = parkOf(first);
        park.whenComplete((woken, failure) -> firstResult.cancel(false));
        long released = System.nanoTime();
        holder.unlock(holderId);
        assertThat(second.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released))
                .as("woken by the release, not by the holder's 30 s lease")
                .isLessThan(5000);
        assertThat(firstResult).isCancelled();
        waiter.unlock(secondId);
    }

    @Test
    void whenTheClientClosesAsTheHeadOfALineWinsThenTheNextInLineStillEnds() throws Exception {
        LockEngine holderEngine = engine(Duration.ofSeconds(30));
        LockEngine waiterEngine = engine(Duration.ofSeconds(30));
        ReentrantRedisLock holder = new ReentrantRedisLock(holderEngine, name);
        long holderId = RedisLock.newOwnerId();
        assertThat(holder.tryLock(0, 30, TimeUnit.SECONDS, holderId)).isTrue();
        AtomicInteger joins = new AtomicInteger();
        ReentrantRedisLock waiter = new ReentrantRedisLock(waiterEngine, name) {
            @Override
            protected ChannelWaiters join(long ownerId) {
                // The second join is the one made for the next in line as the head wins: the client closes
                // at that very moment, and the registry refuses it.
                if (joins.incrementAndGet() == 2) {
                    new Thread(waiterEngine::close).start();
                    IoThreadsMustNotBlock.onPurpose(
                            () -> await().atMost(Duration.ofSeconds(10)).until(waiterEngine::isClosed));
                    throw new IllegalStateException("closed");
                }
                return super.join(ownerId);
            }
        };
        CompletableFuture<Boolean> head = waiter.tryLockAsync(30, 30, TimeUnit.SECONDS, RedisLock.newOwnerId())
                .toCompletableFuture();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiterEngine.parkedWaiters() == 1);
        CompletableFuture<Boolean> next = waiter.tryLockAsync(30, 30, TimeUnit.SECONDS, RedisLock.newOwnerId())
                .toCompletableFuture();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiterEngine.parkedWaiters() == 2);

        holder.unlock(holderId);

        await().atMost(Duration.ofSeconds(10)).until(head::isDone);
        assertThatThrownBy(() -> next.get(10, TimeUnit.SECONDS))
                .as("the next in line, promoted as the client closed")
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(LockException.class)
                .hasMessageContaining("closed");
    }

    private static CompletableFuture<?> parkOf(SingleKeyAcquisition acquisition) throws ReflectiveOperationException {
        Field parked = SingleKeyAcquisition.class.getDeclaredField("parked");
        parked.setAccessible(true);
        return (CompletableFuture<?>) parked.get(acquisition);
    }

    @Test
    void whenTheOwnerReentersWhileItsLastUnlockIsAnsweredThenTheNewHoldIsKept() throws Exception {
        Duration watchdog = Duration.ofSeconds(1);
        LockEngine engine = engine(watchdog);
        AtomicReference<@Nullable CompletableFuture<Void>> replyGate = new AtomicReference<>();
        ReentrantRedisLock lock = new ReentrantRedisLock(engine, name) {
            @Override
            protected CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId, String requestId) {
                CompletableFuture<@Nullable Long> sent = super.release(leaseMillis, ownerId, requestId);
                CompletableFuture<Void> gate = replyGate.getAndSet(null);
                return gate == null ? sent : sent.thenCombine(gate, (reply, open) -> reply);
            }
        };
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(0, -1, TimeUnit.MILLISECONDS, owner)).isTrue();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        replyGate.set(gate);
        // The last unlock runs in Redis, but its reply is held back ...
        CompletableFuture<Void> unlocking = lock.unlockAsync(owner).toCompletableFuture();
        await().atMost(Duration.ofSeconds(5)).until(() -> "0".equals(redis.command("EXISTS", name)));
        // ... while the same owner takes the lock again, renewed by the watchdog.
        assertThat(lock.tryLock(0, -1, TimeUnit.MILLISECONDS, owner)).isTrue();
        gate.complete(null);
        unlocking.get(5, TimeUnit.SECONDS);
        assertThat(engine.holds().get(lock.key, lock.ownerField(owner)))
                .as("the new hold's record")
                .isNotNull();
        await().during(watchdog.multipliedBy(3))
                .atMost(watchdog.multipliedBy(5))
                .until(() -> lock.isHeldBy(owner));
        lock.unlock(owner);
        assertThat(lock.isLocked()).isFalse();
        assertThat(engine.holds().snapshot()).isEmpty();
    }
}
