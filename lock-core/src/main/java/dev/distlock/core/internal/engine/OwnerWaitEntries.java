package dev.distlock.core.internal.engine;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The calls of this client that share an owner's wait entry in Redis: its place in a fair lock's
 * queue, or its claim as a waiting writer of a read-write lock. Redis keeps one such entry per owner
 * field, and every waiting attempt of that owner makes or renews it: when one call gives up while
 * another call of the same owner still waits here, that entry is the waiting call's too, so it must
 * stay. Only the last call to leave withdraws it.
 *
 * <p>A call counts from its first waiting attempt, or from the moment it starts waiting in the
 * lock's local line (where it sends nothing, but its owner's entry keeps its turn), until it ends.
 * When the last call to leave never sent a waiting attempt itself, it withdraws the entry only if
 * one of the calls it outlived may have made it.
 *
 * <p>A call that starts while the last one's withdrawal is in flight may have its first attempt
 * reach Redis before the withdrawal: it then loses the entry with it, and its next attempt (at most
 * one renewal interval later) makes it again, at the tail of a queue. No entry is ever kept for a
 * call that no longer waits.
 */
public final class OwnerWaitEntries {

    /** A call that may wait with its owner's entry. */
    public interface WaitingCall {

        /** @return whether the call has ended (granted, refused, failed or cancelled): it no longer waits */
        boolean ended();
    }

    /** The calls that wait with one owner's entry. Only read or changed inside the map's compute methods. */
    private static final class Waiting {
        final Set<Object> calls = Collections.newSetFromMap(new IdentityHashMap<>());
        /** Whether one of the calls sent a waiting attempt, so that the entry may exist in Redis. */
        boolean queued;
    }

    /** Per owner's entry (lock key and owner field, as a value): the calls that wait with it. */
    private final Map<Object, Waiting> waiting = new ConcurrentHashMap<>();

    /**
     * Counts a call whose waiting attempt is about to be sent, which may make or renew the entry;
     * counting it again changes nothing.
     * @param entry lock key and owner field, as a value with equals and hashCode
     * @param call the waiting call, told apart by identity
     */
    public void queues(Object entry, Object call) {
        count(entry, call, true);
    }

    /**
     * Counts a call that waits for its turn without sending anything (in the lock's local line): it
     * keeps an entry its owner's other calls made, but makes none.
     * @param entry lock key and owner field
     * @param call the waiting call
     */
    public void waits(Object entry, Object call) {
        count(entry, call, false);
    }

    private void count(Object entry, Object call, boolean queued) {
        waiting.compute(entry, (id, calls) -> {
            Waiting kept = calls != null ? calls : new Waiting();
            kept.calls.add(call);
            kept.queued |= queued;
            return kept;
        });
    }

    /**
     * A call stops waiting without the lock and no longer counts.
     * @param entry lock key and owner field
     * @param call the call that gives up
     * @return whether the entry is the call's to withdraw: no other call of the owner waits with it,
     *     and it may exist (or this client does not know the owner's calls)
     */
    public boolean leaves(Object entry, Object call) {
        boolean[] withdraw = {true};
        // In one step with the check: two calls giving up together must not each see the other stay.
        waiting.computeIfPresent(entry, (id, calls) -> {
            calls.calls.remove(call);
            // A call that ended without leaving (a path that skipped its bookkeeping) must not keep the
            // entry for good: its owner's queue place or claim would stand with nobody waiting.
            calls.calls.removeIf(other -> other instanceof WaitingCall waiter && waiter.ended());
            boolean last = calls.calls.isEmpty();
            withdraw[0] = last && calls.queued;
            return last ? null : calls;
        });
        return withdraw[0];
    }

    /**
     * A call ended, whatever its outcome, and no longer counts; the entry is not withdrawn.
     * @param entry lock key and owner field
     * @param call the call
     */
    public void ended(Object entry, Object call) {
        leaves(entry, call);
    }
}
