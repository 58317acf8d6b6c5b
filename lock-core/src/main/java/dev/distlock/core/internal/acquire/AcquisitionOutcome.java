package dev.distlock.core.internal.acquire;

import dev.distlock.core.LockException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * How one {@link SingleKeyAcquisition} ends, whichever way: granted, timed out, failed or abandoned. Every
 * ending first cleans up (leaves the wake-up channel, withdraws a queued wait, tells the kind, gives
 * back what an attempt whose reply was lost may have taken) and only then completes the caller's
 * future, so that a caller never sees the outcome of a call that still has a queue entry or a waiter
 * listing in Redis.
 */
final class AcquisitionOutcome {

    private final SingleKeyAcquisition call;
    private final KindHooks lock;
    private final Attempts attempts;
    private final long leaseMillis;
    private final long start;
    /** Leaves the wake-up channel, if the call joined one, told whether the call acquired the lock. */
    private final Consumer<Boolean> leaveChannel;

    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    /** Completes once the call has cleaned up after itself (left the queue, unlisted, released a late grant). */
    private final CompletableFuture<Void> settled = new CompletableFuture<>();

    AcquisitionOutcome(
            SingleKeyAcquisition call,
            KindHooks lock,
            Attempts attempts,
            long leaseMillis,
            long start,
            Consumer<Boolean> leaveChannel) {
        this.call = call;
        this.lock = lock;
        this.attempts = attempts;
        this.leaseMillis = leaseMillis;
        this.start = start;
        this.leaveChannel = leaveChannel;
    }

    /** @return the caller's future: whether the lock was acquired */
    CompletableFuture<Boolean> result() {
        return result;
    }

    /** @return completes once the call is over and cleaned up */
    CompletableFuture<Void> settled() {
        return settled;
    }

    void granted() {
        if (call.cancelled()) {
            // The cancel raced the grant: nobody will use or unlock this hold, so give it back now.
            attempts.giveBack().whenComplete((released, failure) -> settle(false));
            return;
        }
        try {
            lock.registerHold(leaseMillis, call.ownerId(), start, call.lastAttemptSent(), !call.reportsAcquiredLater());
        } catch (LockException ex) {
            failed(ex);
            return;
        }
        settle(true);
        if (!result.complete(true)) {
            // Cancelled between the check above and now: the grant just booked is given back. An unlock
            // would end whichever of the owner's grants expires first, and so could leave this one (a
            // watchdog grant, renewed until the owner's last unlock) in place of the owner's own.
            Release.givingBack(lock, call.ownerId()).run();
        }
    }

    /** @param waited whether the caller waited, and so may have queued itself */
    void gaveUp(boolean waited) {
        CompletableFuture<Void> abandoned = waited ? lock.abandonWait(call) : CompletableFuture.completedFuture(null);
        abandoned.whenComplete((ignored, error) -> {
            settle(false);
            try {
                attempts.throwIfShortfall();
            } catch (LockException ex) {
                result.completeExceptionally(ex);
                return;
            }
            lock.events().timedOut(call.ownerId(), start);
            result.complete(false);
        });
    }

    /**
     * The wait ran out while Redis could not be reached: withdraw what the call queued, as
     * {@link #gaveUp} does, then fail with what the latest attempt failed with, so that the caller
     * can tell an unreachable store from a lock that stayed taken.
     * @param failure what the latest attempt failed with
     */
    void gaveUpUnreachable(LockException failure) {
        lock.abandonWait(call).whenComplete((ignored, error) -> {
            settle(false);
            result.completeExceptionally(failure);
        });
    }

    /** The caller cancelled: withdraw what the call queued; its future was already cancelled. */
    void abandoned() {
        lock.abandonWait(call).whenComplete((ignored, error) -> settle(false));
    }

    /**
     * The caller cancelled while it waited in the local line: it never tried, but another call of
     * its owner may have left it the owner's entry in Redis, which the kind withdraws if so.
     */
    void withdrawnUntried() {
        lock.abandonWait(call).whenComplete((ignored, error) -> settle(false));
    }

    void failed(Throwable failure) {
        settle(false);
        result.completeExceptionally(failure);
    }

    private void settle(boolean acquired) {
        leaveChannel.accept(acquired);
        lock.acquisitionEnded(call, acquired, leaseMillis);
        lock.lostGrants.ended(call.ownerId(), acquired, leaseMillis);
        settled.complete(null);
    }
}
