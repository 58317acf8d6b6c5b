package dev.distlock.spring.integration;

import org.springframework.integration.support.locks.DistributedLock;

/** One key's lock of a {@link DistlockLockRegistry}, in whichever layout the registry keeps. */
interface KeyLock extends DistributedLock {

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
