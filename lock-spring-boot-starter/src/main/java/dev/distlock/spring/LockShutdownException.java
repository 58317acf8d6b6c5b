package dev.distlock.spring;

/**
 * Thrown when a lock is requested while the application shuts down: Distlock no longer takes new
 * locks then, and only keeps renewing the ones held by work that is finishing.
 */
public class LockShutdownException extends LockAcquisitionException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception.
     * @param lockName resolved lock name
     * @param description what asked for the lock
     */
    public LockShutdownException(String lockName, String description) {
        super(
                lockName,
                "Lock '" + lockName + "' not acquired for " + description
                        + ": the application is shutting down and takes no new locks",
                null);
    }
}
