package dev.distlock.spring.internal.hold;

import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Hears every acquisition and hold taken through the annotation and the template: the one path by
 * which metrics and observations learn of them. The executor tells one observer, which fans out to
 * every observer bean. Free of Micrometer types, so that the executor loads without Micrometer.
 *
 * <p>Observers are the starter's own code; an application hears lock events through core's
 * {@link dev.distlock.core.LockListener} instead.
 */
public interface LockObserver {

    /** Observer that records nothing. */
    LockObserver NO_OP = (request, ownerId) -> Acquiring.NO_OP;

    /**
     * An acquisition begins on the caller's thread.
     * @param request what is locked
     * @param ownerId the owner id
     * @return the acquisition under way
     */
    Acquiring acquireStarted(LockRequest request, long ownerId);

    /**
     * Wraps a task about to be handed to another thread so that it runs with what is current here,
     * on the caller's thread, as its parent.
     * @param task the task
     * @return the task to hand on
     */
    default Runnable propagating(Runnable task) {
        return task;
    }

    /**
     * Returns one observer that tells each of the given observers in turn.
     * @param observers the observers
     * @return the observer to tell
     */
    static LockObserver of(List<LockObserver> observers) {
        return switch (observers.size()) {
            case 0 -> NO_OP;
            case 1 -> observers.get(0);
            default -> new LockObservers(observers);
        };
    }

    /** How an acquisition ended. */
    enum Outcome {
        /** The lock was acquired. */
        ACQUIRED,
        /** The wait ran out. */
        TIMEOUT,
        /** Redis failed or the call was interrupted. */
        ERROR;

        /** @return the tag value */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** An acquisition under way. */
    interface Acquiring {

        /** Records nothing. */
        Acquiring NO_OP = new Acquiring() {
            @Override
            public Holding acquired() {
                return Holding.NO_OP;
            }

            @Override
            public void ended(Outcome outcome, @Nullable Throwable error) {}
        };

        /**
         * Makes the acquisition current on this thread while Redis is called, so that Redis client
         * spans become its children.
         * @return closes the scope
         */
        default Scope openScope() {
            return Scope.NONE;
        }

        /**
         * The lock was acquired: the acquisition ends and the hold begins.
         * @return the hold
         */
        Holding acquired();

        /**
         * The acquisition ended without the lock.
         * @param outcome {@code TIMEOUT} or {@code ERROR}
         * @param error the failure, or {@code null}
         */
        void ended(Outcome outcome, @Nullable Throwable error);
    }

    /** A hold under way. */
    interface Holding {

        /** Records nothing. */
        Holding NO_OP = () -> {};

        /** The hold's lease was lost while the guarded code ran; told once per hold at most. */
        default void leaseLost() {}

        /**
         * The hold's release is about to be sent to Redis, on the releasing thread; {@link #released()}
         * follows once Redis has answered. Told at most once, and not when no release is sent.
         */
        default void releasing() {}

        /** The hold ended; told once. */
        void released();
    }

    /** An open scope. */
    interface Scope extends AutoCloseable {

        /** A scope that opened nothing. */
        Scope NONE = () -> {};

        @Override
        void close();
    }
}
