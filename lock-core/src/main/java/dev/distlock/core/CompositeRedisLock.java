package dev.distlock.core;

import dev.distlock.core.internal.AcquiredStages;
import dev.distlock.core.internal.composite.Await;
import dev.distlock.core.internal.engine.Arguments;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The {@link RedisLock} entry points of a lock made of other locks. The subclass supplies one
 * asynchronous acquisition and one asynchronous release, composed of its members' asynchronous
 * calls; every blocking method is a wait on them. The calling thread is the only one that waits: an
 * interrupt cancels the acquisition where the method is interruptible, and is deferred otherwise.
 */
abstract class CompositeRedisLock implements RedisLock {

    /**
     * Starts acquiring every member the subclass needs, for one owner.
     * @param waitMillis wait in ms, {@code 0} to try once, {@code -1} forever
     * @param leaseMillis lease in ms, {@code -1} for the watchdog
     * @param ownerId owner
     * @return completes with whether acquired; cancelling it abandons the acquisition
     */
    abstract CompletableFuture<Boolean> acquireAsync(long waitMillis, long leaseMillis, long ownerId);

    /**
     * Starts releasing one hold of the owner on the members.
     * @param ownerId owner
     * @return completes once released
     */
    abstract CompletableFuture<Void> releaseAsync(long ownerId);

    @Override
    public final void lock() {
        lock(WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    @Override
    public final void lock(long leaseTime, TimeUnit unit) {
        long lease = Arguments.leaseMillis(leaseTime, unit);
        Await.uninterruptibly(acquireAsync(Arguments.FOREVER, lease, currentOwner()), "lock " + this);
    }

    @Override
    public final void lockInterruptibly() throws InterruptedException {
        lockInterruptibly(WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    @Override
    public final void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        acquire(Arguments.FOREVER, Arguments.leaseMillis(leaseTime, unit), currentOwner());
    }

    @Override
    public final boolean tryLock() {
        // Like Lock.tryLock(), this ignores the interrupt flag: it waits for nothing but Redis' answers.
        return Await.uninterruptibly(acquireAsync(0, WATCHDOG_LEASE, currentOwner()), "lock " + this);
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

    private boolean acquire(long waitMillis, long leaseMillis, long ownerId) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring " + this);
        }
        return Await.interruptibly(
                acquireAsync(waitMillis, leaseMillis, ownerId), () -> unlock(ownerId), "lock " + this);
    }

    @Override
    public final CompletionStage<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
        return acquireAsync(Arguments.waitMillis(waitTime, unit), Arguments.leaseMillis(leaseTime, unit), ownerId);
    }

    @Override
    public final CompletionStage<Void> lockAsync(long leaseTime, TimeUnit unit, long ownerId) {
        long lease = Arguments.leaseMillis(leaseTime, unit);
        // Cancelling the stage the caller holds must reach the acquisition, which a dependent stage does
        // not do, and must release the members if the acquisition won just before the cancel.
        return AcquiredStages.derive(
                acquireAsync(Arguments.FOREVER, lease, ownerId), acquired -> null, () -> releaseAsync(ownerId));
    }

    @Override
    public final CompletionStage<Void> unlockAsync(long ownerId) {
        return releaseAsync(ownerId);
    }

    @Override
    public final void unlock() {
        unlock(currentOwner());
    }

    @Override
    public final void unlock(long ownerId) {
        // A release completes even for an interrupted caller.
        Await.uninterruptibly(releaseAsync(ownerId), "unlock " + this);
    }

    @Override
    public final boolean isHeldByCurrentThread() {
        return isHeldBy(currentOwner());
    }

    static long currentOwner() {
        return Thread.currentThread().getId();
    }
}
