package dev.distlock.spring;

import dev.distlock.core.LockException;

/**
 * The lease of a lock was lost while the locked method ran, so another process may have run the
 * same critical section concurrently. Thrown after the method returns when
 * {@code distlock.lease-lost-policy=throw}, so that a surrounding transaction rolls back.
 */
public class LockLeaseExpiredException extends LockException {

    private static final long serialVersionUID = 1L;

    private final String lockName;

    /**
     * Creates an exception.
     * @param lockName resolved lock name
     * @param method the locked method, for the message
     */
    public LockLeaseExpiredException(String lockName, String method) {
        super("Lease of lock '" + lockName + "' was lost while " + method + " ran");
        this.lockName = lockName;
    }

    /**
     * Returns the lock whose lease was lost.
     * @return resolved lock name
     */
    public String getLockName() {
        return lockName;
    }
}
