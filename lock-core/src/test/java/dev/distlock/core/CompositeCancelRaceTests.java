package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A composite lock's {@code lockAsync} cancelled at the moment its acquisition wins: the member's
 * grant and the caller's cancel run on two threads at once, many times over, against a member whose
 * grant the test completes itself. Whatever the interleaving, the hold is either the caller's (the
 * cancel came too late and said so) or given back: never kept for nobody.
 */
class CompositeCancelRaceTests {

    private final ExecutorService granter = Executors.newSingleThreadExecutor();

    @AfterEach
    void tearDown() {
        granter.shutdownNow();
    }

    @Test
    void whenTheCancelMeetsTheGrantThenTheHoldIsTheCallersOrGivenBack() throws Exception {
        ScriptedMember member = new ScriptedMember();
        CyclicBarrier together = new CyclicBarrier(2);
        int cancelledAfterWinning = 0;
        for (int i = 0; i < 3000; i++) {
            member.releases.set(0);
            RedisLock multi = i % 2 == 0 ? MultiLock.of(member) : RedLock.of(member);
            long owner = RedisLock.newOwnerId();
            CompletableFuture<Void> locking =
                    multi.lockAsync(30, TimeUnit.SECONDS, owner).toCompletableFuture();
            CompletableFuture<Boolean> grant = member.pending.getAndSet(null);
            assertThat(grant).as("the member was asked").isNotNull();
            Future<?> granted = granter.submit(() -> {
                together.await();
                return grant.complete(true);
            });
            together.await();
            boolean cancelled = locking.cancel(false);
            granted.get(10, TimeUnit.SECONDS);
            if (!cancelled) {
                locking.get(10, TimeUnit.SECONDS);
                multi.unlockAsync(owner).toCompletableFuture().get(10, TimeUnit.SECONDS);
            } else if (grant.isDone() && !grant.isCancelled()) {
                cancelledAfterWinning++;
            }
            int round = i;
            await().pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(1))
                    .atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(member.releases)
                            .as("round %d: releases of the one grant", round)
                            .hasValue(grant.isCancelled() ? 0 : 1));
        }
        assertThat(cancelledAfterWinning).as("cancels that met a grant").isPositive();
    }

    /** A member whose every acquisition waits for the test to grant it, and which counts its releases. */
    private static final class ScriptedMember implements RedisLock {

        final AtomicReference<CompletableFuture<Boolean>> pending = new AtomicReference<>();
        final AtomicInteger releases = new AtomicInteger();

        @Override
        public CompletionStage<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
            CompletableFuture<Boolean> grant = new CompletableFuture<>();
            pending.set(grant);
            return grant;
        }

        @Override
        public CompletionStage<Void> unlockAsync(long ownerId) {
            releases.incrementAndGet();
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public String getName() {
            return "scripted";
        }

        @Override
        public long remainTimeToLive() {
            return 30_000;
        }

        @Override
        public void lock(long leaseTime, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void lockInterruptibly(long leaseTime, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean tryLock() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionStage<Void> lockAsync(long leaseTime, TimeUnit unit, long ownerId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void unlock(long ownerId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isLocked() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isHeldByCurrentThread() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isHeldBy(long ownerId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int getHoldCount() {
            throw new UnsupportedOperationException();
        }

        @Override
        public RedisLock withListener(LockListener listener) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean forceUnlock() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void lock() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void lockInterruptibly() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void unlock() {
            throw new UnsupportedOperationException();
        }
    }
}
