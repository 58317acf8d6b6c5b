package dev.distlock.core.internal.acquire;

import dev.distlock.core.LockException;
import dev.distlock.core.internal.Failures;
import dev.distlock.core.internal.engine.Arguments;
import dev.distlock.core.internal.engine.LocalWaiterLines;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.engine.ReplyDeadlines;
import dev.distlock.core.internal.pubsub.ChannelWaiters;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One call that acquires a lock, run as a chain of asynchronous steps: no thread waits for it.
 * Try; if refused and the caller waits, join the kind's wake-up channel, then alternate between
 * trying and parking until a wake-up arrives or the holder's remaining lease passes, within the
 * caller's wait. A park is a future completed by the pub/sub message or by a timer. A wait that runs
 * out while Redis does not answer (its latest attempt failed) fails with that attempt's
 * {@link LockException} instead of answering {@code false}: the lock was not seen taken to the end.
 * Where the kind
 * allows, a caller that finds other local callers waiting for the lock first waits in their
 * {@link LocalWaiterLines line} and tries only once it heads it; {@link LocalLinePlace} takes those
 * steps, and this class goes on from where each of them ends.
 *
 * <p>Steps run one after another, each on the thread that completed the previous one's future (a
 * Redis I/O thread, the pub/sub thread or the client's timer), so the fields need no locking; only
 * {@link #cancel()} comes from elsewhere, and it only flags the call and cuts its park short.
 */
public final class SingleKeyAcquisition implements dev.distlock.core.internal.engine.OwnerWaitEntries.WaitingCall {

    /** Longest park when the holder's lease is unknown (no TTL on the key, or Redis not answering). */
    static final long UNKNOWN_TTL_PARK_MILLIS = 1000;

    private final KindHooks lock;
    private final LockEngine engine;
    private final long waitMillis;
    private final long leaseMillis;
    private final long ownerId;
    private final WaitBudget budget;
    /** Whether the blocking caller reports the grant to the listeners itself, on its own thread. */
    private volatile boolean reportLater;

    private final Attempts attempts;
    private final AcquisitionOutcome outcome;
    private final CompletableFuture<Boolean> result;
    private volatile boolean cancelled;
    private volatile @Nullable CompletableFuture<?> parked;
    private @Nullable ChannelWaiters waiters;
    /** What the first attempt answered (ms until the holder's lease ends), for a waiter that parks at once. */
    private @Nullable Long firstRefusal;

    private final LocalLinePlace line;

    private @Nullable Long token;
    /** Whether the latest attempt kept this client listed as a waiting client (targeted wake-ups). */
    private volatile boolean keptListing;
    /** When the latest attempt was written: a grant's lease started in Redis after this. */
    private volatile long lastAttemptSent;
    /** What the latest attempt while waiting failed with, or {@code null} when Redis answered it. */
    private @Nullable Throwable lastFailure;

    /**
     * Creates the call; nothing is sent before {@link #start()}.
     * @param lock the kind's hooks, for the lock to acquire
     * @param waitMillis the caller's wait in ms: {@code 0} for one attempt, negative for as long as needed
     * @param leaseMillis the lease in ms, or {@link LockEngine#WATCHDOG}
     * @param ownerId the owner to acquire for
     */
    public SingleKeyAcquisition(KindHooks lock, long waitMillis, long leaseMillis, long ownerId) {
        this.lock = lock;
        this.engine = lock.engine;
        this.waitMillis = waitMillis;
        this.budget =
                new WaitBudget(waitMillis, engine.options().commandTimeout().toNanos());
        this.leaseMillis = leaseMillis;
        this.ownerId = ownerId;
        this.attempts = new Attempts(lock, leaseMillis, ownerId);
        this.line = new LocalLinePlace(this, lock, ownerId);
        this.outcome = new AcquisitionOutcome(this, lock, attempts, leaseMillis, budget.start(), this::leaveChannel);
        this.result = outcome.result();
    }

    /** The caller that waits for this call reports the grant itself ({@link #reportAcquired()}). */
    void reportAcquiredLater() {
        reportLater = true;
    }

    /** @return whether the grant is reported by the waiting caller rather than where it arrives */
    boolean reportsAcquiredLater() {
        return reportLater;
    }

    /** Tells the listeners of the grant, on the calling thread. */
    void reportAcquired() {
        lock.reportAcquired(ownerId, budget.start());
    }

    /** @return completes with whether the lock was acquired; cancelling it abandons the call */
    public CompletableFuture<Boolean> start() {
        start(false);
        return result;
    }

    /**
     * Starts the call for a caller that waits for it on its own thread: when the call tries at once
     * and the connection is open, its first attempt is sent from this thread and its reply is
     * returned for the caller to wait on ({@link ReplyDeadlines#awaitOnThisThread}) and hand to
     * {@link #firstReplied}; everything else (a wait in the local line, the later rounds) goes on
     * by itself, as for {@link #start()}.
     * @return the first attempt's reply, or {@code null} when the call goes on by itself
     */
    @Nullable
    CompletableFuture<@Nullable Long> startOnThisThread() {
        return start(true);
    }

    /** @return the future of {@link #start()} */
    CompletableFuture<Boolean> result() {
        return result;
    }

    private @Nullable CompletableFuture<@Nullable Long> start(boolean onThisThread) {
        result.whenComplete((acquired, failure) -> {
            if (result.isCancelled()) {
                cancel();
            }
        });
        if (engine.isClosed()) {
            outcome.failed(engine.calls().closedException(lock.name, null));
            return null;
        }
        CompletableFuture<Void> check;
        try {
            check = lock.beforeAcquire(waitMillis, ownerId);
        } catch (RuntimeException ex) {
            check = CompletableFuture.failedFuture(ex);
        }
        if (check.isDone() && !check.isCompletedExceptionally()) {
            if (!triesAtOnce()) {
                return null;
            }
            CompletableFuture<@Nullable Long> reply = onThisThread ? attempts.sendOnThisThread(waitMillis, this) : null;
            if (reply == null) {
                firstAttempt(waitMillis);
            }
            return reply;
        }
        check.whenComplete((ignored, failure) -> {
            if (failure != null) {
                outcome.failed(Failures.cause(failure));
            } else {
                begin();
            }
        });
        return null;
    }

    /** Tries at once, or waits behind the local callers that already wait for the lock. */
    private void begin() {
        if (triesAtOnce()) {
            firstAttempt(waitMillis);
        }
    }

    /**
     * Enters the local line when the call waits in one.
     * @return {@code true} when the call tries now (it heads the line, or needs none); {@code false}
     *     when it waits in the line, going on from its turn by itself
     */
    private boolean triesAtOnce() {
        if (waitMillis == 0 || !lock.waitsInLocalLine(ownerId)) {
            return true;
        }
        LocalWaiterLines.Queued place = line.enter();
        if (place == null) {
            return true;
        }
        line.waitForTurn(place, budget, this::park).thenAccept(this::takeTurn);
        return false;
    }

    /** @return the deadline of the first attempt sent by {@link #startOnThisThread()}, counted from now */
    long firstAttemptDeadline() {
        return attempts.deadline(this);
    }

    /**
     * Goes on from a wait in the local line. A wait that ends in the line makes one attempt before
     * giving up, as a caller outside it would have: a timeout means the lock was seen held.
     */
    private void takeTurn(LocalLinePlace.Turn turn) {
        if (turn.ending() != LocalLinePlace.Ending.HEADS) {
            if (engine.isClosed()) {
                outcome.failed(engine.calls().closedException(lock.name, null));
            } else if (cancelled) {
                outcome.withdrawnUntried();
            } else if (turn.ending() == LocalLinePlace.Ending.LEFT_WAITING) {
                // One attempt that queues nothing in Redis.
                firstAttempt(0);
            } else {
                // Its owner took the lock: it re-enters past the line, or lines up again if that hold
                // has gone meanwhile.
                begin();
            }
            return;
        }
        ChannelWaiters channel = turn.channel();
        waiters = channel;
        if (stopped(false)) {
            return;
        }
        if (turn.holderWakes()) {
            // The previous head holds the lock now and its release will be heard here: trying first
            // would only be refused. Parked until that hold's lease can lapse (no release is heard
            // then), and at most the unknown-lease bound, in case the hold is lost without a release.
            long leaseLeft = turn.holderLeaseLeftMillis();
            parkOrGiveUp(leaseLeft < 0 ? UNKNOWN_TTL_PARK_MILLIS : Math.min(leaseLeft, UNKNOWN_TTL_PARK_MILLIS));
        } else if (channel != null) {
            // Subscribed since before the previous head ended: a refusal now parks until the release.
            attemptWhileWaiting();
        } else {
            firstAttempt(waitMillis);
        }
    }

    /** @return completes once the call is over and cleaned up, whatever its outcome */
    CompletableFuture<Void> settled() {
        return outcome.settled();
    }

    /** Abandons the call: it stops at its next step, and a grant that raced this is given back. */
    void cancel() {
        cancelled = true;
        CompletableFuture<?> park = parked;
        if (park != null) {
            park.cancel(false);
        }
    }

    /** @return the owner the call acquires for */
    public long ownerId() {
        return ownerId;
    }

    /** @return whether the caller abandoned the call */
    boolean cancelled() {
        return cancelled;
    }

    @Override
    public boolean ended() {
        return result.isDone();
    }

    /** @return whether the caller still waits for this call: not cancelled, client not closed */
    boolean wanted() {
        return !cancelled && !engine.isClosed();
    }

    /** @return until when an attempt may wait for the connection; see {@link WaitBudget#connectBy()} */
    long connectBy() {
        return budget.connectBy();
    }

    /** Notes that an attempt is being written now. */
    void attemptSent() {
        lastAttemptSent = System.nanoTime();
    }

    /** @return when the latest attempt was written ({@link System#nanoTime()}) */
    long lastAttemptSent() {
        return lastAttemptSent;
    }

    /**
     * Notes whether the latest attempt kept this client listed as waiting for the lock, where the
     * kind's releases wake only listed clients.
     * @param kept whether the listing stays if the attempt is granted
     */
    public void keptListing(boolean kept) {
        keptListing = kept;
    }

    /** @return whether the granting attempt kept this client listed; see {@link #keptListing(boolean)} */
    public boolean keptListing() {
        return keptListing;
    }

    /** @param token the fencing token the granting attempt drew */
    public void token(long token) {
        this.token = token;
    }

    /** @return the fencing token of the grant, or {@code null} */
    @Nullable
    public Long token() {
        return token;
    }

    /**
     * The first attempt fails the call when Redis does not answer. The script may still have run
     * and queued this caller (a fair queue entry, a waiting writer's claim), or the caller's wait
     * ended in the local line with its owner's entry left to it: withdraw that, so nobody waits
     * behind a caller that has gone.
     * @param wait the wait the attempt announces: the caller's, or {@code 0} for the one attempt of a
     *     caller whose wait ended in the local line
     */
    private void firstAttempt(long wait) {
        attempt(null, wait).whenComplete((ttl, failure) -> firstAttemptEnded(wait, ttl, failure));
    }

    /**
     * Goes on from the reply of the first attempt that {@link #startOnThisThread()} sent, once its
     * caller has it: as from an attempt sent the asynchronous way, except that an attempt the
     * connection refused unwritten is sent again that way, which waits for the reconnect.
     * @param reply the reply the attempt was sent with
     * @param awaited what the wait for it returned: {@code reply}, done, or the failure of a reply
     *     that did not come by its deadline
     */
    void firstReplied(CompletableFuture<@Nullable Long> reply, CompletableFuture<@Nullable Long> awaited) {
        Throwable failure = null;
        Long ttl = null;
        try {
            ttl = awaited.join();
        } catch (RuntimeException ex) {
            failure = Failures.cause(ex);
        }
        if (failure == null) {
            firstAttemptEnded(waitMillis, ttl, null);
        } else if (awaited != reply) {
            firstAttemptEnded(waitMillis, null, failure);
        } else if (Failures.unwritten(failure)) {
            firstAttempt(waitMillis);
        } else {
            // Mapped as a reply deadline maps the failure of an attempt sent the asynchronous way.
            firstAttemptEnded(waitMillis, null, engine.calls().failed(failure, lock.name, "acquire"));
        }
    }

    private void firstAttemptEnded(long wait, @Nullable Long ttl, @Nullable Throwable failure) {
        if (failure != null) {
            if (waitMillis != 0 && !engine.isClosed()) {
                lock.abandonWait(this).whenComplete((ignored, error) -> outcome.failed(Failures.cause(failure)));
            } else {
                outcome.failed(Failures.cause(failure));
            }
        } else if (ttl == null) {
            outcome.granted();
        } else if (wait == 0) {
            // Nothing was queued for a caller that does not wait, so there is nothing to abandon; a
            // caller whose wait ended in the local line may have been left its owner's entry.
            outcome.gaveUp(waitMillis != 0);
        } else {
            firstRefusal = ttl;
            nextRound(false);
        }
    }

    private void nextRound(boolean woken) {
        if (stopped(woken)) {
            return;
        }
        if (waiters != null) {
            attemptWhileWaiting();
            return;
        }
        engine.calls()
                .whenConnected(true, () -> CompletableFuture.completedFuture(attempts.join()))
                .whenComplete((joined, failure) -> {
                    if (failure != null) {
                        // close() between the first attempt and here: the registry refuses new waiters.
                        outcome.failed(
                                engine.isClosed()
                                        ? engine.calls().closedException(lock.name, Failures.cause(failure))
                                        : Failures.cause(failure));
                        return;
                    }
                    waiters = joined;
                    if (joined == null) {
                        attemptWhileWaiting();
                        return;
                    }
                    Long refused = firstRefusal;
                    if (refused != null && joined.confirmed() && joined.waiting() > 1) {
                        // Others of this client already wait here, subscribed all along: a release since our
                        // first try woke one of them, so park at once instead of queueing a second try behind
                        // theirs (a burst of waiters would otherwise delay every release by a round of tries).
                        parkOrGiveUp(refused);
                        return;
                    }
                    CompletableFuture<?> subscribed = attempts.subscribed(joined, remainingMillis());
                    park(subscribed);
                    subscribed.whenComplete((ignored, error) -> attemptWhileWaiting());
                });
    }

    private void attemptWhileWaiting() {
        if (stopped(false)) {
            return;
        }
        long left = waitMillis < 0 ? Arguments.FOREVER : Math.max(1, remainingMillis());
        attempt(waiters, left).whenComplete((ttl, failure) -> {
            if (failure != null && engine.isClosed()) {
                outcome.failed(engine.calls().closedException(lock.name, Failures.cause(failure)));
                return;
            }
            // A waiter keeps waiting through an outage and retries once Redis is back.
            lastFailure = failure != null ? Failures.cause(failure) : null;
            Long wait = failure != null ? Long.valueOf(UNKNOWN_TTL_PARK_MILLIS) : ttl;
            if (wait == null) {
                outcome.granted();
                return;
            }
            parkOrGiveUp(wait);
        });
    }

    /** Parks until a wake-up or the holder's lease ends ({@code wait} ms, -1 unknown); gives up when the wait is over. */
    private void parkOrGiveUp(long wait) {
        long remaining = remainingMillis();
        if (remaining <= 0) {
            Throwable unreachable = lastFailure;
            if (unreachable != null) {
                // Redis did not answer the latest attempt: the lock was last seen taken, but the wait
                // ended for want of Redis, which is not the same as a lock that stayed taken.
                outcome.gaveUpUnreachable(
                        unreachable instanceof LockException known
                                ? known
                                : new LockException(
                                        "Cannot acquire lock '" + lock.name + "': its wait ended while Redis"
                                                + " could not serve it: " + unreachable.getMessage(),
                                        unreachable));
            } else {
                outcome.gaveUp(true);
            }
            return;
        }
        long nap = wait < 0 ? Math.min(UNKNOWN_TTL_PARK_MILLIS, remaining) : Math.min(Math.max(wait, 1), remaining);
        ChannelWaiters channel = waiters;
        // Not subscribed: no wake-up can come, so park no longer than the unknown-TTL bound.
        CompletableFuture<?> wake = channel != null
                ? channel.park(nap, engine.scheduler())
                : engine.calls().delay(Math.min(nap, UNKNOWN_TTL_PARK_MILLIS));
        park(wake);
        wake.whenComplete((woken, error) -> nextRound(Boolean.TRUE.equals(woken)));
    }

    private void park(CompletableFuture<?> wake) {
        parked = wake;
        if (cancelled) {
            wake.cancel(false);
        }
    }

    private CompletableFuture<@Nullable Long> attempt(@Nullable ChannelWaiters waiting, long waitLeft) {
        return attempts.send(waiting, waitLeft, this);
    }

    /**
     * @param woken whether the park that just ended was ended by a wake-up
     * @return whether the call must stop here: the client closed, or the caller cancelled
     */
    private boolean stopped(boolean woken) {
        if (engine.isClosed()) {
            outcome.failed(engine.calls().closedException(lock.name, null));
            return true;
        }
        if (cancelled) {
            ChannelWaiters channel = waiters;
            if (woken && channel != null) {
                // The wake-up reached this call as its caller cancelled: it was meant for whoever waits
                // next, and the lock may be free now, so hand it on rather than use it up.
                channel.passOn();
            }
            outcome.abandoned();
            return true;
        }
        return false;
    }

    private void leaveChannel(boolean acquired) {
        ChannelWaiters channel = waiters;
        waiters = null;
        // The next in line joins the channel before this call leaves it.
        line.callEnded(channel, acquired);
        if (channel != null) {
            channel.leave();
        }
    }

    /**
     * @return ms until the lease of this call's grant can lapse: it started in Redis after the
     *     granting attempt was written; {@code -1} when the watchdog renews it
     */
    long leaseLeftMillis() {
        if (leaseMillis == LockEngine.WATCHDOG) {
            return -1;
        }
        return Math.max(0, leaseMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastAttemptSent));
    }

    private long remainingMillis() {
        return budget.remainingMillis();
    }
}
