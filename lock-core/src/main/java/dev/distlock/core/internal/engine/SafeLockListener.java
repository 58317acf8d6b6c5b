package dev.distlock.core.internal.engine;

import dev.distlock.core.LockListener;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells each of a list of user listeners in turn, logging and swallowing what one throws so that
 * the lock operation goes on and the next listener still hears the event. The one place where a
 * listener's failure is contained: callers hand every listener here instead of wrapping their own.
 */
public final class SafeLockListener implements LockListener {

    private static final Logger log = LoggerFactory.getLogger(SafeLockListener.class);

    private final List<LockListener> delegates;

    private SafeLockListener(List<LockListener> delegates) {
        this.delegates = List.copyOf(delegates);
    }

    /**
     * @param listeners the listeners, told in this order
     * @return one listener that tells them all and never throws
     */
    public static LockListener of(List<LockListener> listeners) {
        return new SafeLockListener(listeners);
    }

    /**
     * Returns the listeners told, for an event about several clients' locks at once (a red lock)
     * that each listener must hear once, however many of those clients it was given to.
     * @return the listeners, in order
     */
    public List<LockListener> delegates() {
        return delegates;
    }

    @Override
    public void onAcquired(String lockName, long ownerId, long waitNanos) {
        if (delegates.isEmpty()) {
            return;
        }
        guard(listener -> listener.onAcquired(lockName, ownerId, waitNanos), "onAcquired", lockName);
    }

    @Override
    public void onTimeout(String lockName, long ownerId, long waitNanos) {
        if (delegates.isEmpty()) {
            return;
        }
        guard(listener -> listener.onTimeout(lockName, ownerId, waitNanos), "onTimeout", lockName);
    }

    @Override
    public void onReleasing(String lockName, long ownerId) {
        if (delegates.isEmpty()) {
            return;
        }
        guard(listener -> listener.onReleasing(lockName, ownerId), "onReleasing", lockName);
    }

    @Override
    public void onReleased(String lockName, long ownerId) {
        if (delegates.isEmpty()) {
            return;
        }
        guard(listener -> listener.onReleased(lockName, ownerId), "onReleased", lockName);
    }

    @Override
    public void onLeaseLost(String lockName, long ownerId) {
        if (delegates.isEmpty()) {
            return;
        }
        guard(listener -> listener.onLeaseLost(lockName, ownerId), "onLeaseLost", lockName);
    }

    private void guard(Consumer<LockListener> call, String method, String lockName) {
        for (LockListener delegate : delegates) {
            try {
                call.accept(delegate);
            } catch (RuntimeException ex) {
                log.warn("{}.{} failed for lock '{}'; ignored", delegate, method, lockName, ex);
            }
        }
    }
}
