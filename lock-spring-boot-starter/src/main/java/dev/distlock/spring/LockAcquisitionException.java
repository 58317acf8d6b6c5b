package dev.distlock.spring;

import dev.distlock.core.LockException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A lock could not be acquired within its wait time, so the guarded code did not run.
 */
public class LockAcquisitionException extends LockException {

    private static final long serialVersionUID = 1L;

    private final String lockName;

    /**
     * Creates an exception.
     * @param lockName resolved lock name
     * @param waitTime how long the caller waited
     * @param cause underlying failure, or {@code null} when the wait simply ran out
     */
    public LockAcquisitionException(String lockName, Duration waitTime, @Nullable Throwable cause) {
        super(
                "Could not acquire lock '" + lockName + "' within " + waitTime
                        + (cause != null ? ": " + cause.getMessage() : ""),
                cause);
        this.lockName = lockName;
    }

    /**
     * Creates an exception with its own message, for refusals that are not a wait running out.
     * @param lockName resolved lock name
     * @param message what happened
     * @param cause underlying failure, or {@code null}
     */
    protected LockAcquisitionException(String lockName, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
    }

    /**
     * Returns the lock that could not be acquired.
     * @return resolved lock name
     */
    public String getLockName() {
        return lockName;
    }
}
