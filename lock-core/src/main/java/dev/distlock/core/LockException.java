package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * A lock operation failed for a reason other than contention: Redis could not be reached, a
 * command timed out, or the client was closed. The message names the lock.
 */
public class LockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception.
     * @param message what failed, naming the lock
     * @param cause the underlying failure, if any
     */
    public LockException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    /**
     * Creates an exception.
     * @param message what failed, naming the lock
     */
    public LockException(String message) {
        super(message);
    }
}
