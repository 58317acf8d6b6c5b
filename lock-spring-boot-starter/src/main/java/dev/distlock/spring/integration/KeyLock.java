package dev.distlock.spring.integration;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.integration.support.locks.DistributedLock;

/** One key's lock of a {@link DistlockLockRegistry}, in whichever layout the registry keeps. */
interface KeyLock extends DistributedLock {

    /** @return the lease a call without one gets: the registry's, or -1 for the watchdog */
    long defaultLeaseMillis();

    /**
     * Tries to take the lock within a wait; the {@code tryLock} overloads reduce to this.
     * @param waitMillis the wait in ms, {@code 0} for one attempt
     * @param leaseMillis the lease in ms, or -1 for the watchdog
     * @return whether the lock was taken
     * @throws InterruptedException if interrupted while waiting
     */
    boolean tryLockFor(long waitMillis, long leaseMillis) throws InterruptedException;

    @Override
    default boolean tryLock() {
        try {
            return tryLockFor(0, defaultLeaseMillis());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    default boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (unit == null) {
            throw new IllegalArgumentException("'unit' must not be null");
        }
        // As java.util.concurrent.locks.Lock: a time not positive tries once.
        return tryLockFor(Math.max(0, unit.toMillis(time)), defaultLeaseMillis());
    }

    @Override
    default boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        if (waitTime == null || waitTime.isNegative()) {
            throw new IllegalArgumentException("'waitTime' must not be null or negative, was " + waitTime);
        }
        return tryLockFor(waitTime.toMillis(), RegistryLock.positiveMillis(ttl, "ttl"));
    }

    /**
     * Confirms that the current thread holds the lock (renewing it where the layout has no
     * watchdog of its own).
     * @throws IllegalStateException if it does not, or the lease ended
     */
    void checkHeld();

    /**
     * Gives the current thread's hold a fixed lease from now.
     * @param leaseMillis the lease, positive
     * @throws IllegalStateException if the thread does not hold the lock, or the lease ended
     */
    void renew(long leaseMillis);

    /**
     * Tells whether the lock was last acquired before the threshold and no thread of this process
     * holds it.
     * @param threshold epoch milliseconds
     * @return whether the handle may be dropped
     */
    boolean isUnusedSince(long threshold);
}
