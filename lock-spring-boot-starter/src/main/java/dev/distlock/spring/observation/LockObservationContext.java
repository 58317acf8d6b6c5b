package dev.distlock.spring.observation;

import dev.distlock.spring.LockType;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * Context of the {@code distlock.acquire} and {@code distlock.held} observations of one locked call.
 */
public class LockObservationContext extends Observation.Context {

    private final String lockName;
    private final LockType lockType;
    private final String key;
    private final String owner;
    private @Nullable Outcome outcome;

    /**
     * Creates a context.
     * @param lockName the lock's template: the annotation's or the template call's name, never a resolved key
     * @param lockType the lock's type
     * @param key the resolved Redis lock name (comma-separated for a multi-lock)
     * @param owner the owner id the lock is held under
     */
    public LockObservationContext(String lockName, LockType lockType, String key, String owner) {
        this.lockName = lockName;
        this.lockType = lockType;
        this.key = key;
        this.owner = owner;
    }

    /** @return the lock's template name, bounded in number */
    public String getLockName() {
        return lockName;
    }

    /** @return the lock's type */
    public LockType getLockType() {
        return lockType;
    }

    /** @return the resolved lock name, unbounded in number */
    public String getKey() {
        return key;
    }

    /** @return the owner id, unbounded in number */
    public String getOwner() {
        return owner;
    }

    /** @return how the acquisition ended, or {@code null} while it runs */
    public @Nullable Outcome getOutcome() {
        return outcome;
    }

    /**
     * Sets how the acquisition ended.
     * @param outcome the outcome
     */
    public void setOutcome(@Nullable Outcome outcome) {
        this.outcome = outcome;
    }

    /** How an acquisition ended. */
    public enum Outcome {
        /** The lock was acquired. */
        ACQUIRED,
        /** The wait ran out. */
        TIMEOUT,
        /** Redis failed or the caller was interrupted. */
        ERROR;

        /** @return the key value: {@code acquired}, {@code timeout} or {@code error} */
        public String value() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
