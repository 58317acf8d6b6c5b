package dev.distlock.core.internal.engine;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The calls of this client that share an owner's place in a lock's queue in Redis. A queue such as
 * a fair lock's keeps one entry per owner field, and every call of that owner refreshes it: when one
 * call gives up while another call of the same owner still waits here, that entry is the waiting
 * call's place too, so it must stay. Only the last call to leave withdraws it.
 *
 * <p>A call that starts while the last one's withdrawal is in flight may have its first attempt
 * reach Redis before the withdrawal: it then loses the place with it, and its next attempt (at most
 * one renewal interval later) queues the owner again, at the tail. No place is ever kept for a call
 * that no longer waits.
 */
public final class OwnerQueuePlaces {

    /**
     * Per queued owner (lock key and owner field, as a value): the calls that wait with its place.
     * Each set is only read or changed inside the map's compute methods.
     */
    private final Map<Object, Set<Object>> waiting = new ConcurrentHashMap<>();

    /**
     * Counts a call as waiting with its owner's place, from the first attempt that may queue it;
     * counting it again changes nothing.
     * @param place lock key and owner field, as a value with equals and hashCode
     * @param call the waiting call, told apart by identity
     */
    public void waits(Object place, Object call) {
        waiting.compute(place, (id, calls) -> {
            Set<Object> kept = calls != null ? calls : Collections.newSetFromMap(new IdentityHashMap<>());
            kept.add(call);
            return kept;
        });
    }

    /**
     * A call stops waiting without the lock and no longer counts.
     * @param place lock key and owner field
     * @param call the call that gives up
     * @return whether the place is the call's to withdraw: no other call of the owner waits with it
     */
    public boolean leaves(Object place, Object call) {
        boolean[] last = {true};
        // In one step with the check: two calls giving up together must not each see the other stay.
        waiting.computeIfPresent(place, (id, calls) -> {
            calls.remove(call);
            last[0] = calls.isEmpty();
            return last[0] ? null : calls;
        });
        return last[0];
    }

    /**
     * A call ended, whatever its outcome, and no longer counts; the place is not withdrawn.
     * @param place lock key and owner field
     * @param call the call
     */
    public void ended(Object place, Object call) {
        leaves(place, call);
    }
}
