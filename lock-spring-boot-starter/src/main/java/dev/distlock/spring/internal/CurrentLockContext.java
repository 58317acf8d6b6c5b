package dev.distlock.spring.internal;

import dev.distlock.spring.LockContext;
import dev.distlock.spring.LockType;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the {@link LockContext} of the running thread. The interceptor, the template and context
 * propagation set and restore it here; applications read it through {@link LockContext#current()}
 * and {@link LockContext#find()}, which is why setting it is not part of {@code LockContext}.
 */
public final class CurrentLockContext {

    private static final ThreadLocal<@Nullable LockContext> CURRENT = new ThreadLocal<>();

    private static volatile @Nullable Factory factory;

    private CurrentLockContext() {}

    /**
     * Returns the innermost context of the running thread.
     * @return the context, or {@code null} outside a lock
     */
    public static @Nullable LockContext get() {
        return CURRENT.get();
    }

    /**
     * Makes a new context current.
     * @param name resolved lock name
     * @param type kind of lock
     * @param fencingToken fencing token or {@code null}
     * @param held tells whether the hold is still valid
     * @return the previous context, to pass to {@link #restore(LockContext)}
     */
    public static @Nullable LockContext enter(
            String name, LockType type, @Nullable Long fencingToken, BooleanSupplier held) {
        LockContext previous = CURRENT.get();
        CURRENT.set(factory().create(name, type, fencingToken, held));
        return previous;
    }

    /**
     * Restores the context that was current before {@link #enter}, or sets one carried over from
     * another thread.
     * @param previous what {@code enter} returned, or {@code null} for none
     */
    public static void restore(@Nullable LockContext previous) {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
    }

    /**
     * Registers how contexts are created; called once by {@link LockContext}, whose constructor is
     * private so that applications cannot make one.
     * @param contexts creates contexts
     */
    public static void registerFactory(Factory contexts) {
        if (factory != null) {
            throw new IllegalStateException("A LockContext factory is already registered");
        }
        factory = contexts;
    }

    private static Factory factory() {
        Factory contexts = factory;
        if (contexts == null) {
            // LockContext registers its factory when its class is initialized, which a class
            // literal does not trigger.
            try {
                Class.forName(LockContext.class.getName(), true, LockContext.class.getClassLoader());
            } catch (ClassNotFoundException ex) {
                throw new IllegalStateException(ex);
            }
            contexts = factory;
            if (contexts == null) {
                throw new IllegalStateException("LockContext registered no factory");
            }
        }
        return contexts;
    }

    /** Creates a {@link LockContext}. */
    @FunctionalInterface
    public interface Factory {

        /**
         * Creates a context.
         * @param name resolved lock name
         * @param type kind of lock
         * @param fencingToken fencing token or {@code null}
         * @param held tells whether the hold is still valid
         * @return the context
         */
        LockContext create(String name, LockType type, @Nullable Long fencingToken, BooleanSupplier held);
    }
}
