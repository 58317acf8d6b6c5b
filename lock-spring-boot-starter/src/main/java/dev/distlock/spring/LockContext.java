package dev.distlock.spring;

import dev.distlock.spring.internal.hold.CurrentLockContext;
import dev.distlock.spring.internal.hold.CurrentLockContext.Frame;
import java.util.Optional;

/**
 * The lock held around the current {@link DistributedLock} or {@link LockTemplate} call, available
 * on the thread that runs the guarded code ({@link #current()}).
 *
 * <p>Inside the reactive chain of a {@code Mono}, {@code Flux}, {@code suspend} or {@code Flow}
 * method, operators may run on any thread. There the context is kept in the Reactor context (under
 * the key {@code LockContext.class}) and, with Micrometer's context-propagation on the classpath,
 * restored as this thread-local wherever Reactor restores thread-locals: in every operator with
 * {@code Hooks.enableAutomaticContextPropagation()} ({@code spring.reactor.context-propagation=auto}),
 * or in {@code handle}/{@code tap} after {@code contextCapture()}. {@link ReactorLockContext#current()}
 * reads it from the Reactor context directly. This class does not need Reactor.
 */
public final class LockContext {

    private final Frame frame;

    private LockContext(Frame frame) {
        this.frame = frame;
    }

    /**
     * Returns the innermost lock held around the running code.
     * @return the context
     * @throws IllegalStateException if no lock is held around the running code
     */
    public static LockContext current() {
        Frame frame = CurrentLockContext.get();
        if (frame == null) {
            throw new IllegalStateException(
                    "LockContext.current() called outside a @DistributedLock method or LockTemplate callback");
        }
        return new LockContext(frame);
    }

    /**
     * Returns the innermost lock held around the running code, if any.
     * @return the context, or empty
     */
    public static Optional<LockContext> find() {
        return Optional.ofNullable(CurrentLockContext.get()).map(LockContext::new);
    }

    /**
     * Returns the resolved lock name (including the key).
     * @return the lock name
     */
    public String name() {
        return frame.name();
    }

    /**
     * Returns the kind of lock.
     * @return the lock type
     */
    public LockType type() {
        return frame.type();
    }

    /**
     * Returns whether the lock is still held: {@code false} once a renewal or a check found it lost,
     * and, for an explicit lease, once that lease has run out by the local clock.
     * @return whether still held
     */
    public boolean isHeld() {
        return frame.held().getAsBoolean();
    }

    /**
     * Returns the fencing token of a fenced lock ({@link DistributedLock#fenced()}).
     * @return the token, or empty for an unfenced lock
     */
    public Optional<Long> fencingToken() {
        return Optional.ofNullable(frame.fencingToken());
    }

    @Override
    public String toString() {
        return "LockContext[" + frame.name() + ", " + frame.type() + "]";
    }
}
