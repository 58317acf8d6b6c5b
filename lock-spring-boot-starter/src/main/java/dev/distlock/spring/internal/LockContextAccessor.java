package dev.distlock.spring.internal;

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
        return CurrentLockContext.get();
    }

    @Override
    public void setValue(LockContext value) {
        CurrentLockContext.restore(value);
    }

    @Override
    public void setValue() {
        CurrentLockContext.restore(null);
    }
}
