package dev.distlock.core.internal.kind;

import dev.distlock.core.LockListener;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.acquire.Attempt;
import dev.distlock.core.internal.acquire.AttemptGrant;
import dev.distlock.core.internal.acquire.Blocking;
import dev.distlock.core.internal.acquire.CompositeLocks;
import dev.distlock.core.internal.acquire.KindHooks;
import dev.distlock.core.internal.acquire.LockEvents;
import dev.distlock.core.internal.acquire.LockOverloads;
import dev.distlock.core.internal.acquire.Release;
import dev.distlock.core.internal.acquire.SingleKeyAcquisition;
import dev.distlock.core.internal.engine.Arguments;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.hold.Hold;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * A single-key lock: the public API over the shared engine pieces ({@link SingleKeyAcquisition} waits,
 * {@link Release} unlocks, {@link Blocking} turns both into the blocking methods, {@link LockOverloads}
 * reduces the API's overloads to them, {@link Inspection} reads the lock's state and {@link LockEvents}
 * tells the listeners). A kind supplies what {@link KindHooks} lists.
 */
public abstract class AbstractRedisLock extends KindHooks implements Cloneable {

    private final Inspection inspection;
    /** Listeners of this view ({@link #withListener}). */
    private volatile LockEvents events;

    protected AbstractRedisLock(LockEngine engine, String name) {
        super(engine, name);
        this.inspection = new Inspection(engine, this.name, key);
        this.events = new LockEvents(engine, this.name);
    }

    /**
     * Runs the acquire script once. Every kind's attempt is marked the same way
     * ({@link dev.distlock.core.internal.acquire.LostGrants}): an attempt whose reply is lost is
     * adopted by the owner's next attempt, or given back when the owner's acquisition ends without
     * the lock.
     */
    @Override
    protected final CompletableFuture<@Nullable Long> tryOnce(Attempt attempt) {
        return lostGrants().attempt(attempt, this::acquireOnce);
    }

    /**
     * Runs the kind's acquire script once. It records the grant's attempt id in the owner's grant
     * record when it takes the lock afresh for the owner or adopts a lost grant, and with
     * {@link AttemptGrant#adopts()} takes over a hold of the owner it finds instead of counting it
     * again: that hold is a lost attempt's, which nobody was told of.
     * @param attempt lease, owner, remaining wait and the waiters the caller joined
     * @param grant how the attempt stands to the owner's others, and its id
     * @return {@code null} when acquired, else the ms to wait before trying again ({@code -1} unknown)
     */
    protected abstract CompletableFuture<@Nullable Long> acquireOnce(Attempt attempt, AttemptGrant grant);

    /** Runs the release script once with a fresh request id. @return as {@link #release(long, long, String)} */
    @Override
    protected final CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId) {
        return release(leaseMillis, ownerId, engine.newRequestId());
    }

    /**
     * Returns the lease to leave when giving back a grant that no hold records (its caller cancelled
     * as it came, or too few replicas saw it): what the owner's remaining holds call for, exactly
     * as after an unlock, so that the give-back neither stretches nor cuts an outer hold's lease.
     * @param ownerId owner
     * @param grantLeaseMillis the given-back grant's lease, kept when the owner holds nothing else here
     * @return lease in ms
     */
    @Override
    protected final long leaseAfterGiveBack(long ownerId, long grantLeaseMillis) {
        Hold hold = engine.holds().get(key, ownerField(ownerId));
        return hold == null ? grantLeaseMillis : hold.leaseAfterGiveBack(engine.watchdogMillis());
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public RedisLock withListener(LockListener listener) {
        Objects.requireNonNull(listener, "'listener' must not be null");
        AbstractRedisLock view;
        try {
            // A shallow copy: a lock object is a stateless view of Redis state plus engine-wide bookkeeping.
            view = (AbstractRedisLock) clone();
        } catch (CloneNotSupportedException ex) {
            throw new IllegalStateException(ex);
        }
        view.events = events.with(listener);
        return view;
    }

    @Override
    protected boolean acquire(long waitMillis, long leaseMillis, long ownerId, boolean interruptible)
            throws InterruptedException {
        return awaitAcquisition(acquireAsync(waitMillis, leaseMillis, ownerId), interruptible);
    }

    /**
     * Starts an acquisition and waits for it, with the blocking methods' interrupt rules.
     * @param call the acquisition, not started yet
     * @param interruptible whether an interrupt aborts the wait (else it is restored afterwards)
     * @return whether acquired
     * @throws InterruptedException if interruptible and interrupted
     */
    final boolean awaitAcquisition(SingleKeyAcquisition call, boolean interruptible) throws InterruptedException {
        return Blocking.acquire(engine, name, call, interruptible);
    }

    @Override
    protected final CompletionStage<Boolean> startAcquisition(long waitMillis, long leaseMillis, long ownerId) {
        return acquireAsync(waitMillis, leaseMillis, ownerId).start();
    }

    /**
     * Creates the acquisition of a call; kinds that report more than the outcome (a fencing token)
     * read it from the acquisition.
     */
    SingleKeyAcquisition acquireAsync(long waitMillis, long leaseMillis, long ownerId) {
        return new SingleKeyAcquisition(this, waitMillis, leaseMillis, ownerId);
    }

    /**
     * Records a granted hold (renewal, bookkeeping) and tells the listeners.
     * @param sentNanos when the granted attempt was sent: the hold's lease is counted from then
     */
    @Override
    protected void registerHold(long leaseMillis, long ownerId, long start, long sentNanos, boolean report) {
        // Granted as close() ran: nothing will renew or release the hold, which expires with its
        // lease like every hold at close, so report the close rather than a hold the caller cannot use.
        engine.calls().ensureOpen(name);
        LockEvents view = events;
        engine.holds()
                .acquired(
                        name,
                        kind(),
                        key,
                        ownerId,
                        ownerField(ownerId),
                        renewScript(),
                        leaseMillis,
                        sentNanos,
                        view.viewListeners());
        if (report) {
            view.acquired(ownerId, start);
        }
    }

    /** Tells the listeners of a grant whose acquisition did not (its blocking caller does). */
    @Override
    protected void reportAcquired(long ownerId, long start) {
        events.acquired(ownerId, start);
    }

    /** @return the listeners of this view */
    @Override
    protected LockEvents events() {
        return events;
    }

    /** @return the reads of this lock's state */
    Inspection inspection() {
        return inspection;
    }

    @Override
    public void unlock(long ownerId) {
        new Release(this, ownerId).runOnThisThread();
    }

    @Override
    public CompletionStage<Void> unlockAsync(long ownerId) {
        return new Release(this, ownerId).run();
    }

    /**
     * Gives back the owner's latest grant, which a composite acquisition took and will not use.
     * @param ownerId the owner
     * @return completes once released; fails as {@code unlockAsync} does
     */
    public CompletableFuture<Void> giveBackAsync(long ownerId) {
        return Release.givingBack(this, ownerId).run();
    }

    @Override
    public boolean renewLease(long leaseTime, TimeUnit unit, long ownerId) {
        if (leaseTime == RedisLock.WATCHDOG_LEASE) {
            throw new IllegalArgumentException("'leaseTime' must be positive for renewLease, was -1");
        }
        long lease = Arguments.leaseMillis(leaseTime, unit);
        // The deadline starts once connected, as for every call: connecting has its own timeout.
        long[] sent = new long[1];
        boolean renewed = Blocking.join(engine.calls().connected(name, "renew").thenCompose(connected -> {
            sent[0] = System.nanoTime();
            return engine.replies()
                    .within(
                            CompositeLocks.renewAsync(this, lease, ownerId),
                            name,
                            "renew",
                            engine.replies().deadline());
        }));
        Hold hold = engine.holds().get(key, ownerField(ownerId));
        if (renewed && hold != null) {
            // Counted from the send: Redis set the new lease after it, so this one never outlasts Redis'.
            hold.leaseRenewed(lease, sent[0]);
        }
        return renewed;
    }

    @Override
    public boolean forceUnlock() {
        long deadline = engine.replies().deadlineOnceConnected(name, "force-unlock");
        boolean deleted =
                engine.replies().await(engine.calls().call(this::forceRelease), name, "force-unlock", deadline);
        if (deleted) {
            // Only then: a read-write lock's read side refuses to delete a write-locked hash, whose holds live on.
            // This client's owners of the lock still believe they hold it: they lose their leases now, as
            // another client's owners do at their next renewal or release.
            engine.holds().snapshot().stream()
                    .filter(h -> h.key().equals(key))
                    .filter(engine.holds()::remove)
                    .forEach(engine::leaseLost);
        }
        return deleted;
    }

    @Override
    public boolean isLocked() {
        return inspection.exists();
    }

    @Override
    public boolean isHeldBy(long ownerId) {
        return inspection.hasField(ownerField(ownerId));
    }

    @Override
    public int getHoldCount() {
        return inspection.holdCount(ownerField(currentOwner()));
    }

    @Override
    public long remainTimeToLive() {
        return inspection.remainingTtl();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + "]";
    }

    /**
     * Withdraws what a waiter that gave up left in Redis (a queue entry, a write claim). Sent by
     * source, because a waiter often gives up when Redis stopped answering; a failure is only
     * logged, because what is left lapses by itself.
     * @param <T> the script's reply
     * @param withdraw sends the withdrawing script
     * @param action what the withdrawal does to the lock, for messages ("leave the queue of")
     * @param kind what the lock is, for the log ("fair lock")
     * @param lapse how what is left goes away without the withdrawal, for the log
     * @return completes once withdrawn or given up, never exceptionally
     */
    protected final <T> CompletableFuture<Void> withdrawWaiter(
            Supplier<CompletableFuture<T>> withdraw, String action, String kind, String lapse) {
        return engine.replies()
                .within(
                        engine.calls().call(withdraw),
                        name,
                        action,
                        engine.replies().deadline())
                .handle((withdrawn, failure) -> {
                    if (failure != null) {
                        LoggerFactory.getLogger(getClass())
                                .debug("Could not {} {} '{}'; {}", action, kind, name, lapse, failure);
                    }
                    return null;
                });
    }
}
