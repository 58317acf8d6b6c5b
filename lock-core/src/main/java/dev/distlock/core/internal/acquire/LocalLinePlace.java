package dev.distlock.core.internal.acquire;

import dev.distlock.core.internal.engine.LocalWaiterLines;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.pubsub.ChannelWaiters;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition's place in its lock's {@link LocalWaiterLines local waiter line}: it enters the
 * line, waits there without a Redis call for its turn, heads the line once the turn comes, and hands
 * the line on to the next caller when the acquisition ends. While it waits, a call whose owner takes
 * the lock leaves the line to re-enter past it. The acquisition decides what to try at each of these
 * points; this class only keeps the call's place and speaks to the line.
 *
 * <p>Used by the steps of one {@link SingleKeyAcquisition}, which run one after another, so its state
 * needs no locking.
 */
final class LocalLinePlace implements LocalWaiterLines.Waiter {

    /** How a wait in the line ended. */
    enum Ending {
        /** The caller's wait ended, the caller cancelled or the client closed, before the call tried. */
        LEFT_WAITING,
        /** The call's owner took the lock meanwhile: it re-enters past the line. */
        OWNER_HOLDS,
        /** The call heads the line now and tries in Redis. */
        HEADS
    }

    /**
     * The end of a wait in the line.
     * @param ending how it ended
     * @param channel with {@link Ending#HEADS}: the wake-up channel inherited from the previous head
     *     (subscribed since before that head ended), or {@code null}
     * @param holderWakes with a channel: the previous head holds the lock now and its release will be
     *     heard on that channel, so trying first would only be refused
     * @param holderLeaseLeftMillis with {@code holderWakes}: ms until that hold's lease can lapse
     *     without a release, {@code -1} when the watchdog renews it
     */
    record Turn(Ending ending, @Nullable ChannelWaiters channel, boolean holderWakes, long holderLeaseLeftMillis) {

        private static Turn left(Ending ending) {
            return new Turn(ending, null, false, -1);
        }
    }

    private final SingleKeyAcquisition call;
    private final KindHooks lock;
    private final LockEngine engine;
    private final long ownerId;
    /** Whether the call heads its lock's local line: it hands the line on when it ends. */
    private boolean headsLine;

    LocalLinePlace(SingleKeyAcquisition call, KindHooks lock, long ownerId) {
        this.call = call;
        this.lock = lock;
        this.engine = lock.engine;
        this.ownerId = ownerId;
    }

    /**
     * Enters the lock's line.
     * @return {@code null} when the call heads the line and tries now, else its place, to
     *     {@link #waitForTurn wait} in
     */
    LocalWaiterLines.@Nullable Queued enter() {
        // Before the line: a call of the owner that heads it and gives up must leave the owner's
        // entry in Redis to this one.
        lock.entersLocalLine(call);
        LocalWaiterLines.Queued place = engine.waiterLines().enter(lock.key, this);
        if (place == null) {
            headsLine = true;
        }
        return place;
    }

    /**
     * Waits in the line without a Redis call until this call heads it, its wait ends, the caller
     * cancels or the client closes. A call that leaves without heading the line is taken out of it.
     * @param place the call's place, from {@link #enter()}
     * @param budget the caller's wait
     * @param park registers the wait, so that a cancel of the call cuts it short
     * @return completes with how the wait ended, on the thread that ended it
     */
    CompletableFuture<Turn> waitForTurn(
            LocalWaiterLines.Queued place, WaitBudget budget, Consumer<CompletableFuture<?>> park) {
        CompletableFuture<@Nullable ChannelWaiters> turn = place.turn;
        // Ends at once when the client is closing.
        CompletableFuture<Void> waitEnds =
                budget.forever() ? null : engine.calls().delay(budget.remainingMillis());
        if (waitEnds != null) {
            waitEnds.thenRun(() -> turn.complete(null));
        }
        park.accept(turn);
        if (engine.isClosed()) {
            // close() swept the lines before this call entered one.
            turn.complete(null);
        }
        return turn.handle((channel, failure) -> {
            if (waitEnds != null) {
                // Stops its timer.
                waitEnds.complete(null);
            }
            boolean left = place.leftWaiting();
            if (left || place.reenters()) {
                engine.waiterLines().remove(lock.key, place);
                return Turn.left(left ? Ending.LEFT_WAITING : Ending.OWNER_HOLDS);
            }
            headsLine = true;
            return new Turn(Ending.HEADS, channel, channel != null && place.holderWakes, place.holderLeaseLeftMillis);
        });
    }

    /**
     * Joins the lock's wake-up channel for this call as it is made the head of the line, while the
     * previous head still listens there.
     * @return the channel, or {@code null} when it cannot be joined now
     */
    @Override
    public @Nullable ChannelWaiters joinForTurn() {
        try {
            return lock.join(ownerId);
        } catch (RuntimeException ex) {
            // Closed as the line moved on: this call must still get its turn, to find the client closed.
            return null;
        }
    }

    @Override
    public long ownerId() {
        return ownerId;
    }

    @Override
    public boolean ownerHolds() {
        return !lock.waitsInLocalLine(ownerId);
    }

    /**
     * The acquisition ends, before it leaves its wake-up channel: the owner's other calls in the line
     * re-enter when it acquired, and a call that heads the line hands it on, the next one joining the
     * channel before this call leaves it.
     * @param channel the wake-up channel the call listened on, or {@code null}
     * @param acquired whether the call acquired the lock
     */
    void callEnded(@Nullable ChannelWaiters channel, boolean acquired) {
        if (acquired) {
            // Before the line moves on: this owner's other calls re-enter rather than head it.
            engine.waiterLines().ownerHolds(lock.key, ownerId);
        }
        if (headsLine) {
            headsLine = false;
            engine.waiterLines()
                    .headDone(
                            lock.key,
                            this,
                            channel,
                            acquired && lock.releaseWakesLocalWaiters(call),
                            call.leaseLeftMillis());
        }
    }
}
