package dev.distlock.core.internal.lock;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockListener;
import dev.distlock.core.internal.script.LuaScript;

/**
 * The holds this client has taken and not yet released, keyed by lock key and owner field. The
 * field, not the owner id, tells holds apart: the read and write sides of a read-write lock share
 * one key and one owner id but are separate holds with separate renewals.
 */
public final class LocalHolds {

    private final Map<HoldKey, Hold> holds = new ConcurrentHashMap<>();

    Hold acquired(String lockName, String kind, String key, long ownerId, String ownerField, LuaScript renew,
            long leaseMillis, List<LockListener> viewListeners) {
        Hold hold = holds.computeIfAbsent(new HoldKey(key, ownerField),
                k -> new Hold(lockName, kind, key, ownerId, ownerField, renew));
        hold.acquired(leaseMillis, viewListeners);
        return hold;
    }

    @Nullable Hold get(String key, String ownerField) {
        return holds.get(new HoldKey(key, ownerField));
    }

    /**
     * Forgets a hold if it is still the given one.
     * @param hold the hold
     * @return whether it was registered
     */
    public boolean remove(Hold hold) {
        return holds.remove(new HoldKey(hold.key(), hold.ownerField()), hold);
    }

    /** @return a snapshot of every hold */
    public List<Hold> snapshot() {
        return List.copyOf(holds.values());
    }

    void clear() {
        holds.clear();
    }

    private record HoldKey(String key, String ownerField) {
    }
}
