package dev.distlock.core.internal.acquire;

import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.AcquiredStages;
import dev.distlock.core.internal.engine.Arguments;
import dev.distlock.core.internal.engine.LockEngine;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The overloads of {@link RedisLock}'s acquire and unlock methods, each checked and reduced to
 * one of three operations a lock implements: a blocking acquisition, an asynchronous one, and an
 * unlock. Defaults live here once: the calling thread as owner, the watchdog lease, and whether
 * an interrupt aborts the wait.
 */
public abstract class LockOverloads implements RedisLock {

    /**
     * Acquires for an owner, waiting up to {@code waitMillis} ({@code -1}: forever).
     * @param waitMillis wait in ms
     * @param leaseMillis lease in ms, or -1 for the watchdog
     * @param ownerId owner
     * @param interruptible whether an interrupt aborts the wait (else it is restored afterwards)
     * @return whether acquired
     * @throws InterruptedException if interruptible and interrupted
     */
    protected abstract boolean acquire(long waitMillis, long leaseMillis, long ownerId, boolean interruptible)
            throws InterruptedException;

    /**
     * Starts an acquisition without blocking.
     * @param waitMillis wait in ms, {@code -1} for forever
     * @param leaseMillis lease in ms, or -1 for the watchdog
     * @param ownerId owner
     * @return completes with whether acquired
     */
    protected abstract CompletionStage<Boolean> startAcquisition(long waitMillis, long leaseMillis, long ownerId);

    @Override
    public void lock() {
        lock(WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        try {
            acquire(Arguments.FOREVER, Arguments.leaseMillis(leaseTime, unit), currentOwner(), false);
        } catch (InterruptedException ex) {
            throw new IllegalStateException("uninterruptible acquisition was interrupted", ex);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        lockInterruptibly(WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    @Override
    public void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        acquire(Arguments.FOREVER, Arguments.leaseMillis(leaseTime, unit), currentOwner(), true);
    }

    /**
     * Acquires the lock if it is free now, with the watchdog lease. Like
     * {@link java.util.concurrent.locks.Lock#tryLock()} it ignores the thread's interrupt flag: it
     * never waits, so it acquires a free lock and leaves the flag set.
     * @return whether the lock was acquired
     */
    @Override
    public boolean tryLock() {
        try {
            return acquire(0, LockEngine.WATCHDOG, currentOwner(), false);
        } catch (InterruptedException ex) {
            // Not thrown when uninterruptible; kept for the checked signature.
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(time, WATCHDOG_LEASE, unit);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return tryLock(waitTime, leaseTime, unit, currentOwner());
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit, long ownerId) throws InterruptedException {
        long wait = Arguments.waitMillis(waitTime, unit);
        return acquire(wait, Arguments.leaseMillis(leaseTime, unit), ownerId, true);
    }

    @Override
    public CompletionStage<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
        long wait = Arguments.waitMillis(waitTime, unit);
        return startAcquisition(wait, Arguments.leaseMillis(leaseTime, unit), ownerId);
    }

    @Override
    public CompletionStage<Void> lockAsync(long leaseTime, TimeUnit unit, long ownerId) {
        long lease = Arguments.leaseMillis(leaseTime, unit);
        return AcquiredStages.derive(
                startAcquisition(Arguments.FOREVER, lease, ownerId).toCompletableFuture(),
                acquired -> null,
                () -> unlockAsync(ownerId).toCompletableFuture());
    }

    @Override
    public void unlock() {
        unlock(currentOwner());
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return isHeldBy(currentOwner());
    }

    /** @return the calling thread's owner id */
    protected static long currentOwner() {
        return Thread.currentThread().getId();
    }
}
