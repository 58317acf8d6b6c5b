package dev.distlock.spring.internal;

import dev.distlock.spring.LockType;

/**
 * Hooks for metrics. {@code name} is always the lock's template (annotation name or the name given
 * to the template), never a resolved key, so that tag cardinality stays bounded.
 */
public interface LockObserver {

    /** Observer that records nothing. */
    LockObserver NO_OP = new LockObserver() {};

    /** Outcome of an acquisition. */
    enum Outcome {
        /** The lock was acquired. */
        ACQUIRED,
        /** The wait ran out. */
        TIMEOUT,
        /** Redis failed or the call was interrupted. */
        ERROR;

        /** @return the tag value */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * A caller started waiting.
     * @param name lock template
     * @param type lock type
     */
    default void waitStarted(String name, LockType type) {}

    /**
     * An acquisition ended.
     * @param name lock template
     * @param type lock type
     * @param outcome how it ended
     * @param nanos how long it took
     */
    default void acquireEnded(String name, LockType type, Outcome outcome, long nanos) {}

    /**
     * A hold ended.
     * @param name lock template
     * @param type lock type
     * @param heldNanos how long it was held
     */
    default void released(String name, LockType type, long heldNanos) {}

    /**
     * A hold's lease was lost.
     * @param name lock template
     * @param type lock type
     */
    default void leaseLost(String name, LockType type) {}
}
