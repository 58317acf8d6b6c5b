package dev.distlock.core.internal.acquire;

import dev.distlock.core.LockKind;
import dev.distlock.core.internal.engine.Arguments;
import dev.distlock.core.internal.engine.LocalWaiterLines;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.layout.RedissonLayout;
import dev.distlock.core.internal.pubsub.ChannelWaiters;
import dev.distlock.core.internal.script.LuaScript;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What a lock kind supplies to the shared engine pieces: one acquire attempt, one release, its
 * renewal script, its wake-up channel and force release, and the optional steps around a wait.
 * Also what every kind knows about its lock: the engine, the name, the key and its layout.
 */
public abstract class KindHooks extends LockOverloads {

    protected final LockEngine engine;
    protected final String name;
    protected final String key;
    /** Every key, channel and field of this lock. */
    protected final RedissonLayout layout;
    /** The attempts of this lock whose reply may be lost, and the give-back of what they took. */
    final LostGrants lostGrants;

    protected KindHooks(LockEngine engine, String name) {
        this.engine = engine;
        this.name = Arguments.requireName(name);
        this.layout = engine.layout(engine.key(name));
        // In a cluster a name Redisson's names cannot keep in one slot is stored under a key of its own.
        this.key = layout.key();
        this.lostGrants = new LostGrants(this);
    }

    /** @return the attempts of this lock whose reply may be lost ({@link LostGrants}) */
    protected final LostGrants lostGrants() {
        return lostGrants;
    }

    /** @return this lock's kind, for diagnostics */
    protected abstract LockKind kind();

    /**
     * Runs the acquire script once, marked as uncertain until its reply reaches the caller
     * ({@link LostGrants#attempt}).
     * @param attempt lease, owner, remaining wait and the waiters the caller joined
     * @return {@code null} when acquired, else the ms to wait before trying again ({@code -1} unknown)
     */
    protected abstract CompletableFuture<@Nullable Long> tryOnce(Attempt attempt);

    /**
     * Runs the release script once. The script keeps an unlock latch under the request id, so a
     * release whose reply was lost can be retried with the same id and replays its first outcome.
     * @param leaseMillis lease to keep while holds remain
     * @param ownerId owner
     * @param requestId unique id of this unlock call
     * @return {@code null} when the owner held nothing, {@code 0} when holds remain, {@code 1} when released
     */
    protected abstract CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId, String requestId);

    /**
     * Runs the release script once with a fresh request id.
     * @param leaseMillis lease to keep while holds remain
     * @param ownerId owner
     * @return as {@link #release(long, long, String)}
     */
    protected abstract CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId);

    /**
     * Runs the release script once, by source, to give back the hold that one of the given lost
     * acquire attempts took, and no other: the script releases one hold only when the owner's grant
     * record names one of them. By source, because the give-back is sent while Redis may not be
     * answering and may be the first use of the script on the server: a {@code NOSCRIPT} answered
     * after the timeout would never be resent, and the lost grant would stay.
     * @param leaseMillis lease to set on the owner's holds that remain (positive: a give-back)
     * @param ownerId owner
     * @param lostAttempts the lost attempts' ids, space-separated
     * @return as {@link #release(long, long, String)}
     */
    protected abstract CompletableFuture<@Nullable Long> releaseLostGrant(
            long leaseMillis, long ownerId, String lostAttempts);

    /**
     * Returns the lease to leave when giving back a grant that no hold records.
     * @param ownerId owner
     * @param grantLeaseMillis the given-back grant's lease
     * @return lease in ms
     */
    protected abstract long leaseAfterGiveBack(long ownerId, long grantLeaseMillis);

    /**
     * Records a granted hold (renewal, bookkeeping) and, when asked, tells the listeners.
     * @param leaseMillis its lease, {@code -1} for the watchdog
     * @param ownerId owner
     * @param start when the acquisition started, for the listeners
     * @param sentNanos when the granted attempt was sent: the hold's lease is counted from then
     * @param report whether to tell the listeners now
     */
    protected abstract void registerHold(long leaseMillis, long ownerId, long start, long sentNanos, boolean report);

    /**
     * Tells the listeners of a grant whose acquisition did not.
     * @param ownerId owner
     * @param start when the acquisition started
     */
    protected abstract void reportAcquired(long ownerId, long start);

    /** @return the listeners of this lock view */
    protected abstract LockEvents events();

    /** @return the script that renews this kind's holds (batched by the watchdog) */
    protected abstract LuaScript renewScript();

    /**
     * Returns the channel whose messages wake this owner.
     * @param ownerId owner
     * @return channel name
     */
    protected abstract String wakeChannel(long ownerId);

    /** @return deletes the lock whoever holds it, waking waiters */
    protected abstract CompletableFuture<Boolean> forceRelease();

    /**
     * Joins this kind's wake-up channel for an owner. Kinds with targeted wake-ups also listen on a
     * client channel and unlist the client when its last local waiter leaves.
     * @param ownerId owner
     * @return the channel's waiters
     */
    protected ChannelWaiters join(long ownerId) {
        return engine.subscriptions().join(wakeChannel(ownerId));
    }

    /** What {@link #beforeAcquire} answers when the call may go ahead. */
    private static final CompletableFuture<Void> MAY_GO_AHEAD = CompletableFuture.completedFuture(null);

    /**
     * Checks, before the first attempt, that the call can ever succeed. Runs on the caller's thread
     * and answers from what this client knows: it is on every acquisition's path.
     * @param waitMillis the caller's wait
     * @param ownerId owner
     * @return completes when the call may go ahead; fails with what to report otherwise
     */
    protected CompletableFuture<Void> beforeAcquire(long waitMillis, long ownerId) {
        return MAY_GO_AHEAD;
    }

    /**
     * Returns whether a waiting acquisition of this owner queues behind the other local waiters of
     * the lock ({@link LocalWaiterLines}) rather than trying at once. Kinds whose waiters may win
     * together, or whose order Redis keeps, answer {@code false}; so must every kind for an owner
     * that holds the lock already: its re-entry cannot wait behind callers waiting for it.
     * @param ownerId owner
     * @return whether to queue locally
     */
    protected boolean waitsInLocalLine(long ownerId) {
        return false;
    }

    /**
     * Returns whether the release of a hold just granted will be heard by this client's other
     * waiters on the kind's wake-up channel, so that the next in the local line parks before trying.
     * True for kinds that announce every release on the channel; kinds that wake one listed client
     * answer whether the grant kept this client listed.
     * @param granted the acquisition that was granted
     * @return whether the release reaches this client's channel
     */
    protected boolean releaseWakesLocalWaiters(SingleKeyAcquisition granted) {
        return true;
    }

    /**
     * Called as a waiting call enters the lock's local line ({@link #waitsInLocalLine}), before it
     * waits there for its turn without a Redis call. Kinds whose waiting owner has an entry in Redis
     * count the call with it here, so that the owner's other calls leave the entry to this one.
     * @param call the acquisition
     */
    protected void entersLocalLine(SingleKeyAcquisition call) {}

    /**
     * Called when a call stops waiting without the lock (timeout, cancel), having waited in Redis
     * or in the local line; kinds that queue waiters remove its owner here, unless another call of
     * the owner still waits with that entry. Never fails: an entry it cannot remove lapses by itself.
     * @param call the acquisition that gives up
     * @return completes once done
     */
    protected CompletableFuture<Void> abandonWait(SingleKeyAcquisition call) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Called once when an acquisition ends, whatever the outcome, after it left the wake-up channel,
     * for what the kind keeps about it. What its lost attempts took is given back after this, the
     * same way for every kind ({@link LostGrants#ended}).
     * @param call the acquisition
     * @param acquired whether it holds the lock
     * @param leaseMillis its lease, {@code -1} for the watchdog
     */
    protected void acquisitionEnded(SingleKeyAcquisition call, boolean acquired, long leaseMillis) {}

    /**
     * Returns the flag that tells a script how to announce on the lock's channels.
     * @return {@code "s"} to use {@code SPUBLISH} (sharded pub/sub in a cluster), else {@code ""}
     */
    protected final String publishFlags() {
        return engine.connector().publishesSharded() ? "s" : "";
    }

    /**
     * Returns the owner field of this kind.
     * @param ownerId owner
     * @return field in the lock hash
     */
    protected String ownerField(long ownerId) {
        return layout.ownerField(ownerId);
    }
}
