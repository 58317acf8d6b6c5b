package dev.distlock.spring.internal.hold;

import dev.distlock.spring.LockType;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Keeps, per thread, the lock held around the running code. The interceptor, the template and
 * context propagation enter and restore it here; applications read it through
 * {@code LockContext.current()} and {@code LockContext.find()}, which wrap the {@link Frame} kept
 * here. Setting it is not part of {@code LockContext}, and this class does not know
 * {@code LockContext}: the public type depends on this one, never the other way round.
 */
public final class CurrentLockContext {

    private static final ThreadLocal<@Nullable Frame> CURRENT = new ThreadLocal<>();

    private CurrentLockContext() {}

    /**
     * Returns the innermost frame of the running thread.
     * @return the frame, or {@code null} outside a lock
     */
    public static @Nullable Frame get() {
        return CURRENT.get();
    }

    /**
     * Makes a new frame current.
     * @param name resolved lock name
     * @param type kind of lock
     * @param fencingToken fencing token or {@code null}
     * @param held tells whether the hold is still valid
     * @return the previous frame, to pass to {@link #restore(Frame)}
     */
    public static @Nullable Frame enter(String name, LockType type, @Nullable Long fencingToken, BooleanSupplier held) {
        Frame previous = CURRENT.get();
        CURRENT.set(new Frame(name, type, fencingToken, held));
        return previous;
    }

    /**
     * Restores the frame that was current before {@link #enter}, or sets one carried over from
     * another thread.
     * @param previous what {@code enter} returned, or {@code null} for none
     */
    public static void restore(@Nullable Frame previous) {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
    }

    /**
     * One lock held around the running code, as {@code LockContext} shows it.
     * @param name resolved lock name
     * @param type kind of lock
     * @param fencingToken fencing token or {@code null}
     * @param held tells whether the hold is still valid
     */
    public record Frame(String name, LockType type, @Nullable Long fencingToken, BooleanSupplier held) {}
}
