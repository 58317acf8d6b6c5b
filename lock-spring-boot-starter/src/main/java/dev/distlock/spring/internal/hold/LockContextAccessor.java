package dev.distlock.spring.internal.hold;

import dev.distlock.spring.LockContext;
import io.micrometer.context.ThreadLocalAccessor;
import org.jspecify.annotations.Nullable;

/**
 * Lets Micrometer's context-propagation carry {@link LockContext} between threads: Reactor writes
 * it into and restores it from the Reactor context under {@code LockContext.class}, the key the
 * lock interceptor puts there. Registered through {@code META-INF/services}, so it is used only when
 * context-propagation is on the classpath.
 */
public final class LockContextAccessor implements ThreadLocalAccessor<LockContext> {

    /** The key in the Reactor context and in context snapshots. */
    public static final Class<LockContext> KEY = LockContext.class;

    @Override
    public Object key() {
        return KEY;
    }

    @Override
    public @Nullable LockContext getValue() {
        return LockContext.find().orElse(null);
    }

    @Override
    public void setValue(LockContext value) {
        // Rebuilt from what LockContext shows, so that this package need not reach into it; the hold
        // it describes is still asked whether it is held.
        CurrentLockContext.restore(new CurrentLockContext.Frame(
                value.name(), value.type(), value.fencingToken().orElse(null), value::isHeld));
    }

    @Override
    public void setValue() {
        CurrentLockContext.restore(null);
    }
}
