package dev.distlock.core.internal.acquire;

import dev.distlock.core.LockListener;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.engine.SafeLockListener;
import java.util.ArrayList;
import java.util.List;

/**
 * Tells the listeners of one lock view what happened: the client's listener, then the listeners
 * added to the view with {@code withListener}, each wrapped so that it never throws.
 */
public final class LockEvents {

    private final LockEngine engine;
    private final String name;
    private final List<LockListener> viewListeners;

    public LockEvents(LockEngine engine, String name) {
        this(engine, name, List.of());
    }

    private LockEvents(LockEngine engine, String name, List<LockListener> viewListeners) {
        this.engine = engine;
        this.name = name;
        this.viewListeners = viewListeners;
    }

    /**
     * @param listener another listener of a new view
     * @return the events of that view
     */
    public LockEvents with(LockListener listener) {
        List<LockListener> listeners = new ArrayList<>(viewListeners);
        listeners.add(SafeLockListener.of(List.of(listener)));
        return new LockEvents(engine, name, List.copyOf(listeners));
    }

    /** @return the view's own listeners, which a hold also tells when its lease is lost */
    public List<LockListener> viewListeners() {
        return viewListeners;
    }

    public void acquired(long ownerId, long start) {
        long waitNanos = System.nanoTime() - start;
        engine.listener().onAcquired(name, ownerId, waitNanos);
        if (!viewListeners.isEmpty()) {
            viewListeners.forEach(listener -> listener.onAcquired(name, ownerId, waitNanos));
        }
    }

    public void timedOut(long ownerId, long start) {
        long waitNanos = System.nanoTime() - start;
        engine.listener().onTimeout(name, ownerId, waitNanos);
        if (!viewListeners.isEmpty()) {
            viewListeners.forEach(listener -> listener.onTimeout(name, ownerId, waitNanos));
        }
    }

    void releasing(long ownerId) {
        engine.listener().onReleasing(name, ownerId);
        if (!viewListeners.isEmpty()) {
            viewListeners.forEach(listener -> listener.onReleasing(name, ownerId));
        }
    }

    void released(long ownerId) {
        engine.listener().onReleased(name, ownerId);
        if (!viewListeners.isEmpty()) {
            viewListeners.forEach(listener -> listener.onReleased(name, ownerId));
        }
    }
}
