package dev.distlock.core.internal.hold;

import dev.distlock.core.LockKind;
import dev.distlock.core.LockListener;
import dev.distlock.core.internal.script.LuaScript;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The holds this client has taken and not yet released, keyed by lock key and owner field. The
 * field, not the owner id, tells holds apart: the read and write sides of a read-write lock share
 * one key and one owner id but are separate holds with separate renewals.
 *
 * <p>Renewals and unlocks are ordered here: the watchdog sends a renewal only inside
 * {@link #sendRenewal(Supplier)}, after checking that each hold is still registered, renewed by the
 * watchdog and not being unlocked, and an unlock marks its hold as being released
 * ({@link #releasing(Hold)}) under the same lock before it sends its release. Redis runs one
 * connection's commands in the order they were sent, so a renewal runs before the release that ends
 * or shortens its hold, never after it and never on a hold the owner took again.
 */
public final class LocalHolds {

    private final Map<HoldKey, Hold> holds = new ConcurrentHashMap<>();
    private final ReadWriteLock renewals = new ReentrantReadWriteLock();

    public Hold acquired(
            String lockName,
            LockKind kind,
            String key,
            long ownerId,
            String ownerField,
            LuaScript renew,
            long leaseMillis,
            long sentNanos,
            List<LockListener> viewListeners) {
        // Recorded inside the map's step, so that an unlock forgetting the hold as its last grant goes
        // (released(Hold, Object)) runs wholly before or after it: the grant never lands on a forgotten hold.
        return holds.compute(new HoldKey(key, ownerField), (k, registered) -> {
            Hold hold = registered != null ? registered : new Hold(lockName, kind, key, ownerId, ownerField, renew);
            hold.acquired(leaseMillis, sentNanos, viewListeners);
            return hold;
        });
    }

    @Nullable
    public Hold get(String key, String ownerField) {
        return holds.get(new HoldKey(key, ownerField));
    }

    /**
     * Marks a hold as being unlocked; no renewal of it is sent from now on until it is cleared.
     * @param hold the hold
     */
    public void releasing(Hold hold) {
        renewals.readLock().lock();
        try {
            hold.releasing(true);
        } finally {
            renewals.readLock().unlock();
        }
    }

    /**
     * Sends a renewal while no unlock can start; check every hold with {@link #renewable(Hold)}
     * inside.
     * @param send checks the holds and sends the renewal (must not wait for the reply)
     * @param <T> what {@code send} returns
     * @return what {@code send} returned
     */
    public <T> T sendRenewal(Supplier<T> send) {
        renewals.writeLock().lock();
        try {
            return send.get();
        } finally {
            renewals.writeLock().unlock();
        }
    }

    /**
     * Returns whether the watchdog may renew a hold now: it is still registered (not released or
     * replaced by a newer hold of the same owner), one of its acquisitions took the watchdog lease,
     * and no unlock of it is in flight.
     * @param hold the hold
     * @return whether to renew it
     */
    public boolean renewable(Hold hold) {
        return holds.get(new HoldKey(hold.key(), hold.ownerField())) == hold && hold.watchdog() && !hold.releasing();
    }

    /**
     * Gives back one acquisition of a hold and forgets the hold once none is left, in one step with
     * {@link #acquired}: an acquisition of the same owner recorded meanwhile (another task of an
     * explicit owner) either keeps the hold or finds it gone and starts a new one, never lands on a
     * hold that is no longer registered, where the watchdog would not renew it and no unlock find it.
     * @param hold the hold
     * @param grant from {@link Hold#grantToGiveBack()} when the unlock started
     * @return the acquisitions left
     */
    public int released(Hold hold, @Nullable Object grant) {
        int[] left = {-1};
        holds.computeIfPresent(new HoldKey(hold.key(), hold.ownerField()), (k, registered) -> {
            if (registered != hold) {
                return registered;
            }
            left[0] = hold.released(grant);
            return left[0] > 0 ? hold : null;
        });
        // Not registered (forgotten as its lease was lost): only its own count changes.
        return left[0] >= 0 ? left[0] : hold.released(grant);
    }

    /**
     * Forgets a hold none of whose acquisitions is left, unless the owner took it again meanwhile.
     * @param hold the hold
     */
    public void forgetIfReleased(Hold hold) {
        holds.computeIfPresent(
                new HoldKey(hold.key(), hold.ownerField()),
                (k, registered) -> registered == hold && hold.count() == 0 ? null : registered);
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

    public void clear() {
        holds.clear();
    }

    private record HoldKey(String key, String ownerField) {}
}
