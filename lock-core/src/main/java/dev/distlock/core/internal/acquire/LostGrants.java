package dev.distlock.core.internal.acquire;

import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.hold.UncertainAcquisitions;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * Acquire attempts whose reply may be lost, for every lock kind: one mechanism, kept in
 * {@link UncertainAcquisitions}. Each attempt of an owner that holds nothing this client knows is
 * marked before it is sent, with an id that the kind's acquire script records beside the lock (the
 * owner's grant record, {@code distlock_lock_grant:{key}:<owner field>}) when it grants the lock
 * afresh. A reply the caller never saw (a command timeout, a dropped connection, a caller that
 * stopped waiting) leaves the mark. The owner's next attempt then adopts the hold such an attempt
 * took instead of counting it twice; an acquisition that ends without the lock sends one release
 * naming its lost attempts, which the kind's release script applies only when the grant record
 * names one of them, so it gives back exactly what such an attempt took and never a hold a later
 * attempt of the owner was granted.
 */
public final class LostGrants {

    private final KindHooks lock;

    LostGrants(KindHooks lock) {
        this.lock = lock;
    }

    /** Which acquisitions {@link UncertainAcquisitions} tells apart: one lock key and owner field. */
    private record Acquisition(String key, String ownerField) {}

    private Acquisition of(long ownerId) {
        return new Acquisition(lock.key, lock.ownerField(ownerId));
    }

    /**
     * Runs one attempt marked as uncertain until its reply reaches the caller.
     * @param attempt the attempt
     * @param send runs the kind's acquire script for the attempt with its grant
     * @return the caller's future: completed only with the script's reply, and a caller that stops
     *     waiting cancels it, so that exactly one of the two wins and a reply nobody received keeps
     *     the attempt marked
     */
    public CompletableFuture<@Nullable Long> attempt(
            Attempt attempt, BiFunction<Attempt, AttemptGrant, CompletableFuture<@Nullable Long>> send) {
        CompletableFuture<@Nullable Long> toCaller = new CompletableFuture<>();
        AttemptGrant grant = begin(attempt.ownerId(), null, toCaller);
        CompletableFuture<@Nullable Long> reply;
        try {
            reply = send.apply(attempt, grant);
        } catch (RuntimeException ex) {
            toCaller.completeExceptionally(ex);
            return toCaller;
        }
        reply.whenComplete((ttl, failure) -> {
            if (failure != null) {
                // The script may still have run: the mark stays, the next attempt adopts what it took.
                toCaller.completeExceptionally(failure);
            } else {
                toCaller.complete(ttl);
            }
        });
        return toCaller;
    }

    /**
     * Decides how an attempt about to be sent stands to the owner's others and, unless the owner
     * holds the lock as far as this client knows, marks it.
     * @param ownerId owner
     * @param attemptId the attempt's id, or {@code null} to draw one
     * @param toCaller completed with the reply; a reply nobody received keeps the mark
     * @return the attempt's grant: {@link AttemptGrant.Mode#MAY_HOLD} when the owner may hold the
     *     lock (a hold this client knows, or another attempt of the owner in flight, which may be
     *     granted first: this one then counts as a re-entry, so that Redis holds as many as the
     *     callers are told), {@link AttemptGrant.Mode#ADOPT} when an earlier attempt's reply was
     *     lost, else {@link AttemptGrant.Mode#FRESH}
     */
    public AttemptGrant begin(long ownerId, @Nullable String attemptId, CompletableFuture<?> toCaller) {
        LockEngine engine = lock.engine;
        UncertainAcquisitions uncertain = engine.uncertainAcquisitions();
        Acquisition id = of(ownerId);
        boolean known = engine.holds().get(lock.key, lock.ownerField(ownerId)) != null;
        AttemptGrant.Mode mode = known || uncertain.inFlight(id)
                ? AttemptGrant.Mode.MAY_HOLD
                : uncertain.contains(id) ? AttemptGrant.Mode.ADOPT : AttemptGrant.Mode.FRESH;
        if (known) {
            // A re-entry whose reply is lost leaves one hold too many, which the owner's last unlock releases.
            return new AttemptGrant(mode, null);
        }
        String grantId = attemptId != null ? attemptId : engine.newRequestId();
        uncertain.begin(id, grantId, toCaller);
        return new AttemptGrant(mode, grantId);
    }

    /**
     * Returns whether an earlier attempt of this owner may have taken the lock unseen (its reply was
     * lost): a waiter of such an owner tries at once, to adopt that hold, rather than queue locally.
     * Only a lost reply counts: the answered attempts of the owner's other calls are still marked
     * until pruned.
     * @param ownerId owner
     * @return whether a lost attempt is marked
     */
    public boolean lost(long ownerId) {
        return lock.engine.uncertainAcquisitions().contains(of(ownerId));
    }

    /**
     * Ends an acquisition of the lock, whichever path took it: forgets the answered attempts of an
     * owner that got it, or gives back what a lost attempt of an owner that gave up may have taken.
     * @param ownerId owner
     * @param acquired whether the owner holds the lock now
     * @param leaseMillis the acquisition's lease, or {@link LockEngine#WATCHDOG}
     */
    public void ended(long ownerId, boolean acquired, long leaseMillis) {
        if (acquired) {
            lock.engine.uncertainAcquisitions().acquired(of(ownerId));
        } else {
            giveBackUnseenHold(ownerId, leaseMillis);
        }
    }

    /**
     * The acquire call ends without a hold, but one of its attempts may have taken one whose reply
     * never reached it: give that back once, so that it neither blocks the lock for a lease nor stays
     * in the bookkeeping. The release names the lost attempts and Redis checks them against the
     * owner's grant record, so it cannot take away a hold a later attempt of the owner was granted.
     */
    private void giveBackUnseenHold(long ownerId, long leaseMillis) {
        LockEngine engine = lock.engine;
        if (engine.isClosed() || engine.holds().get(lock.key, lock.ownerField(ownerId)) != null) {
            return;
        }
        long lease = leaseMillis == LockEngine.WATCHDOG ? engine.watchdogMillis() : leaseMillis;
        engine.uncertainAcquisitions()
                .gaveUp(
                        of(ownerId),
                        lostAttempts -> engine.calls().call(() -> lock.releaseLostGrant(lease, ownerId, lostAttempts)),
                        lease + engine.options().commandTimeout().toMillis(),
                        engine.scheduler(),
                        lock.name);
    }
}
