package dev.distlock.spring.internal;

import org.jspecify.annotations.Nullable;

/**
 * Per-call instrumentation of an acquisition and the hold that follows. Free of Micrometer types so
 * that {@link LockExecutor} loads without Micrometer on the class path.
 */
public interface LockInstrumentation {

    /** Instrumentation that records nothing. */
    LockInstrumentation NO_OP = (request, ownerId) -> Acquire.NO_OP;

    /**
     * An acquisition begins on the caller's thread.
     * @param request what is locked
     * @param ownerId the owner id
     * @return the running acquisition
     */
    Acquire acquireStarted(LockRequest request, long ownerId);

    /**
     * Wraps a task about to be handed to another thread so that it runs with the observation that
     * is current here, on the caller's thread, as its parent.
     * @param task the task
     * @return the task to hand on
     */
    default Runnable propagating(Runnable task) {
        return task;
    }

    /** A running acquisition. */
    interface Acquire {

        /** Records nothing. */
        Acquire NO_OP = new Acquire() {
            @Override
            public Scope openScope() {
                return () -> {};
            }

            @Override
            public Held acquired() {
                return () -> {};
            }

            @Override
            public void ended(LockObserver.Outcome outcome, @Nullable Throwable error) {}
        };

        /**
         * Makes the acquisition current on this thread while Redis is called, so that Redis client
         * spans become its children.
         * @return closes the scope
         */
        Scope openScope();

        /**
         * The lock was acquired: ends the acquisition and starts the hold.
         * @return the hold
         */
        Held acquired();

        /**
         * The acquisition ended without the lock.
         * @param outcome {@code TIMEOUT} or {@code ERROR}
         * @param error the failure, or {@code null}
         */
        void ended(LockObserver.Outcome outcome, @Nullable Throwable error);
    }

    /** A running hold. */
    interface Held {

        /** The hold ended. */
        void released();
    }

    /** An open scope. */
    interface Scope extends AutoCloseable {

        @Override
        void close();
    }
}
