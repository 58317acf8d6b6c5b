package dev.distlock.core.internal.lock;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArraySet;

import dev.distlock.core.LockListener;
import dev.distlock.core.internal.script.LuaScript;

/**
 * What this client knows about one owner's hold on one lock. Redis stays the source of truth;
 * this is what the watchdog renews and what diagnostics list.
 */
public final class Hold {

    private final String lockName;
    private final String kind;
    private final String key;
    private final long ownerId;
    private final String ownerField;
    private final LuaScript renewScript;
    private final Instant since = Instant.now();
    private int count;
    private long leaseMillis;
    private boolean watchdog;
    private volatile boolean releasing;
    private final CopyOnWriteArraySet<LockListener> listeners = new CopyOnWriteArraySet<>();

    Hold(String lockName, String kind, String key, long ownerId, String ownerField, LuaScript renewScript) {
        this.lockName = lockName;
        this.kind = kind;
        this.key = key;
        this.ownerId = ownerId;
        this.ownerField = ownerField;
        this.renewScript = renewScript;
    }

    synchronized void acquired(long leaseMillis, List<LockListener> viewListeners) {
        count++;
        listeners.addAll(viewListeners);
        this.watchdog |= leaseMillis == LockEngine.WATCHDOG;
        this.leaseMillis = leaseMillis;
    }

    synchronized int released() {
        return --count;
    }

    /** @return lock name without prefix */
    public String lockName() {
        return lockName;
    }

    /** @return lock kind, e.g. {@code reentrant} */
    public String kind() {
        return kind;
    }

    /** @return Redis key of the lock */
    public String key() {
        return key;
    }

    /** @return thread id or explicit owner id */
    public long ownerId() {
        return ownerId;
    }

    /** @return owner field in the lock hash */
    public String ownerField() {
        return ownerField;
    }

    /** @return script that renews this hold */
    public LuaScript renewScript() {
        return renewScript;
    }

    /** @return when the first hold was taken */
    public Instant since() {
        return since;
    }

    /** @return local hold count */
    public synchronized int count() {
        return count;
    }

    /** @return lease of the latest acquisition in ms, {@code -1} for the watchdog */
    public synchronized long leaseMillis() {
        return leaseMillis;
    }

    /** @return whether the watchdog renews this hold */
    public synchronized boolean watchdog() {
        return watchdog;
    }

    /** @return the listeners of the lock views this hold was taken through (never throw) */
    public List<LockListener> listeners() {
        return List.copyOf(listeners);
    }

    /** @return whether an unlock of this hold is in flight (renewal failures are then expected) */
    public boolean releasing() {
        return releasing;
    }

    void releasing(boolean value) {
        this.releasing = value;
    }
}
