package dev.distlock.core;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.internal.lock.Arguments;
import dev.distlock.core.internal.lock.CompositeLocks;

/**
 * The {@link RedisLock} entry points of a lock made of other locks: every variant checks its
 * arguments, picks the owner and delegates to one {@link #acquire} of the subclass.
 */
abstract class CompositeRedisLock implements RedisLock {

    /**
     * Acquires every member the subclass needs, for one owner.
     * @param waitMillis wait in ms, {@code 0} to try once, {@code -1} forever
     * @param leaseMillis lease in ms, {@code -1} for the watchdog
     * @param ownerId owner
     * @return whether acquired
     * @throws InterruptedException if interrupted while waiting
     */
    abstract boolean acquire(long waitMillis, long leaseMillis, long ownerId) throws InterruptedException;

    @Override
    public final void lock() {
        lock(WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    @Override
    public final void lock(long leaseTime, TimeUnit unit) {
        long lease = Arguments.leaseMillis(leaseTime, unit);
        long owner = currentOwner();
        CompositeLocks.lockUninterruptibly(() -> acquire(WAIT_FOREVER, lease, owner));
    }

    @Override
    public final void lockInterruptibly() throws InterruptedException {
        lockInterruptibly(WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    @Override
    public final void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        acquire(WAIT_FOREVER, Arguments.leaseMillis(leaseTime, unit), currentOwner());
    }

    @Override
    public final boolean tryLock() {
        // Like Lock.tryLock(), this ignores the interrupt flag: the members' one-shot attempts
        // would otherwise refuse a free lock because of it. The flag is restored afterwards.
        boolean interrupted = Thread.interrupted();
        try {
            return acquire(0, WATCHDOG_LEASE, currentOwner());
        }
        catch (InterruptedException ex) {
            interrupted = true;
            return false;
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public final boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(time, WATCHDOG_LEASE, unit);
    }

    @Override
    public final boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return tryLock(waitTime, leaseTime, unit, currentOwner());
    }

    @Override
    public final boolean tryLock(long waitTime, long leaseTime, TimeUnit unit, long ownerId)
            throws InterruptedException {
        return acquire(Arguments.waitMillis(waitTime, unit), Arguments.leaseMillis(leaseTime, unit), ownerId);
    }

    @Override
    public final void unlock() {
        unlock(currentOwner());
    }

    @Override
    public final boolean isHeldByCurrentThread() {
        return isHeldBy(currentOwner());
    }

    static long currentOwner() {
        return Thread.currentThread().getId();
    }

    @Override
    public CompletionStage<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
        long wait = Arguments.waitMillis(waitTime, unit);
        long lease = Arguments.leaseMillis(leaseTime, unit);
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return tryLock(wait, lease, TimeUnit.MILLISECONDS, ownerId);
            }
            catch (InterruptedException ex) {
                throw new java.util.concurrent.CompletionException(ex);
            }
        });
    }

    @Override
    public CompletionStage<Void> lockAsync(long leaseTime, TimeUnit unit, long ownerId) {
        return tryLockAsync(WAIT_FOREVER, leaseTime, unit, ownerId).thenApply(acquired -> null);
    }

    @Override
    public CompletionStage<Void> unlockAsync(long ownerId) {
        return java.util.concurrent.CompletableFuture.runAsync(() -> unlock(ownerId));
    }

}
