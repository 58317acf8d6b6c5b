package dev.distlock.core.internal.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockException;
import dev.distlock.core.internal.pubsub.ChannelWaiters;

/**
 * One call that acquires a lock, run as a chain of asynchronous steps: no thread waits for it.
 * Try; if refused and the caller waits, join the kind's wake-up channel, then alternate between
 * trying and parking until a wake-up arrives or the holder's remaining lease passes, within the
 * caller's wait. A park is a future completed by the pub/sub message or by a timer.
 *
 * <p>Steps run one after another, each on the thread that completed the previous one's future (a
 * Redis I/O thread, the pub/sub thread or the client's timer), so the fields need no locking; only
 * {@link #cancel()} comes from elsewhere, and it only flags the call and cuts its park short.
 */
final class Acquisition {

    /** Longest park when the holder's lease is unknown (no TTL on the key, or Redis not answering). */
    static final long UNKNOWN_TTL_PARK_MILLIS = 1000;

    private final AbstractRedisLock lock;
    private final LockEngine engine;
    private final long waitMillis;
    private final long leaseMillis;
    private final long ownerId;
    private final long start = System.nanoTime();
    private final ReplicaSync sync;
    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    /** Completes once the call has cleaned up after itself (left the queue, unlisted, released a late grant). */
    private final CompletableFuture<Void> settled = new CompletableFuture<>();
    private volatile boolean cancelled;
    private volatile @Nullable CompletableFuture<?> parked;
    private @Nullable ChannelWaiters waiters;
    private @Nullable Long token;
    /** What the first attempt answered (ms until the holder's lease ends), until the first park. */
    private @Nullable Long firstRefusal;

    Acquisition(AbstractRedisLock lock, long waitMillis, long leaseMillis, long ownerId) {
        this.lock = lock;
        this.engine = lock.engine;
        this.waitMillis = waitMillis;
        this.leaseMillis = leaseMillis;
        this.ownerId = ownerId;
        this.sync = new ReplicaSync(engine, lock.name, lock.key);
    }

    /** @return completes with whether the lock was acquired; cancelling it abandons the call */
    CompletableFuture<Boolean> start() {
        result.whenComplete((acquired, failure) -> {
            if (result.isCancelled()) {
                cancel();
            }
        });
        if (engine.isClosed()) {
            end(engine.closedException(lock.name, null));
            return result;
        }
        engine.call(() -> lock.beforeAcquire(waitMillis, ownerId)).whenComplete((ignored, failure) -> {
            if (failure != null) {
                end(unwrap(failure));
            }
            else {
                firstAttempt();
            }
        });
        return result;
    }

    /** @return completes once the call is over and cleaned up, whatever its outcome */
    CompletableFuture<Void> settled() {
        return settled;
    }

    /** Abandons the call: it stops at its next step, and a grant that raced this is given back. */
    void cancel() {
        cancelled = true;
        CompletableFuture<?> park = parked;
        if (park != null) {
            park.cancel(false);
        }
    }

    long ownerId() {
        return ownerId;
    }

    /** @param token the fencing token the granting attempt drew */
    void token(long token) {
        this.token = token;
    }

    /** @return the fencing token of the grant, or {@code null} */
    @Nullable Long token() {
        return token;
    }

    /**
     * The first attempt fails the call when Redis does not answer. The script may still have run
     * and queued this caller (a fair queue entry, a waiting writer's claim): withdraw that, so nobody
     * waits behind a caller that has gone.
     */
    private void firstAttempt() {
        attempt(null, waitMillis).whenComplete((ttl, failure) -> {
            if (failure != null) {
                if (waitMillis != 0 && !engine.isClosed()) {
                    lock.abandonWait(ownerId).whenComplete((ignored, error) -> end(unwrap(failure)));
                }
                else {
                    end(unwrap(failure));
                }
            }
            else if (ttl == null) {
                granted();
            }
            else if (waitMillis == 0) {
                // Nothing was queued for a caller that does not wait, so there is nothing to abandon.
                gaveUp(false);
            }
            else {
                firstRefusal = ttl;
                nextRound();
            }
        });
    }

    private void nextRound() {
        if (stopped()) {
            return;
        }
        if (waiters != null) {
            attemptWhileWaiting();
            return;
        }
        engine.whenConnected(true, () -> CompletableFuture.completedFuture(join())).whenComplete((joined, failure) -> {
            if (failure != null) {
                // close() between the first attempt and here: the registry refuses new waiters.
                end(engine.isClosed() ? engine.closedException(lock.name, unwrap(failure)) : unwrap(failure));
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
            // Not fatal if the SUBSCRIBE is slow: parks are bounded by the holder's TTL anyway.
            long bound = Math.min(engine.options().commandTimeout().toMillis(), remainingMillis());
            CompletableFuture<Void> timeUp = engine.delay(bound);
            CompletableFuture<Object> subscribed = CompletableFuture.anyOf(joined.ready(), timeUp);
            park(subscribed);
            subscribed.whenComplete((ignored, error) -> {
                timeUp.complete(null);
                attemptWhileWaiting();
            });
        });
    }

    /** @return the channel's waiters, or {@code null} when pub/sub cannot be used now (bounded parks instead) */
    private @Nullable ChannelWaiters join() {
        try {
            return lock.join(ownerId);
        }
        catch (RuntimeException ex) {
            engine.failIfClosed(lock.name, ex);
            return null;
        }
    }

    private void attemptWhileWaiting() {
        if (stopped()) {
            return;
        }
        long left = waitMillis < 0 ? AbstractRedisLock.WAIT_FOREVER : Math.max(1, remainingMillis());
        attempt(waiters, left).whenComplete((ttl, failure) -> {
            if (failure != null && engine.isClosed()) {
                end(engine.closedException(lock.name, unwrap(failure)));
                return;
            }
            // A waiter keeps waiting through an outage and retries once Redis is back.
            Long wait = failure != null ? Long.valueOf(UNKNOWN_TTL_PARK_MILLIS) : ttl;
            if (wait == null) {
                granted();
                return;
            }
            parkOrGiveUp(wait);
        });
    }

    /** Parks until a wake-up or the holder's lease ({@code wait} ms, {@code -1} unknown), or gives up when the wait is over. */
    private void parkOrGiveUp(long wait) {
        long remaining = remainingMillis();
        if (remaining <= 0) {
            gaveUp(true);
            return;
        }
        long nap = wait < 0 ? Math.min(UNKNOWN_TTL_PARK_MILLIS, remaining) : Math.min(Math.max(wait, 1), remaining);
        ChannelWaiters channel = waiters;
        // Not subscribed: no wake-up can come, so park no longer than the unknown-TTL bound.
        CompletableFuture<?> wake = channel != null ? channel.park(nap, engine.scheduler())
                : engine.delay(Math.min(nap, UNKNOWN_TTL_PARK_MILLIS));
        park(wake);
        wake.whenComplete((woken, error) -> nextRound());
    }

    private void park(CompletableFuture<?> wake) {
        parked = wake;
        if (cancelled) {
            wake.cancel(false);
        }
    }

    private CompletableFuture<@Nullable Long> attempt(@Nullable ChannelWaiters waiting, long waitLeft) {
        long lease = leaseMillis == LockEngine.WATCHDOG ? engine.watchdogMillis() : leaseMillis;
        Attempt once = new Attempt(lease, ownerId, waitLeft, waiting, this);
        return engine.connected(lock.name, "acquire").thenCompose(connected -> {
            long deadline = engine.deadline();
            // A replica-synced attempt borrows a connection of its own, which may have to be opened.
            CompletableFuture<@Nullable Long> sent = sync.enabled()
                    ? engine.offload(() -> sync.acquire(() -> lock.tryOnce(once)))
                    : engine.call(() -> lock.tryOnce(once));
            return engine.within(sent, lock.name, "acquire", deadline);
        }).thenCompose(ttl -> ttl != null
                // Replica-sync guard (off unless configured): a grant that too few replicas saw is undone.
                ? CompletableFuture.completedFuture(sync.refused(ttl))
                : sync.confirm(() -> lock.release(lease, ownerId)));
    }

    private void granted() {
        if (cancelled) {
            // The cancel raced the grant: nobody will use or unlock this hold, so give it back now.
            long lease = leaseMillis == LockEngine.WATCHDOG ? engine.watchdogMillis() : leaseMillis;
            engine.call(() -> lock.release(lease, ownerId)).whenComplete((released, failure) -> settle(false));
            return;
        }
        try {
            lock.registerHold(leaseMillis, ownerId, start);
        }
        catch (LockException ex) {
            end(ex);
            return;
        }
        settle(true);
        if (!result.complete(true)) {
            // Cancelled between the check above and now: the hold is registered, so unlock it the usual way.
            lock.unlockAsync(ownerId);
        }
    }

    private void gaveUp(boolean waited) {
        CompletableFuture<Void> abandoned = waited ? lock.abandonWait(ownerId) : CompletableFuture.completedFuture(null);
        abandoned.whenComplete((ignored, error) -> {
            settle(false);
            try {
                sync.throwIfShortfall();
            }
            catch (LockException ex) {
                result.completeExceptionally(ex);
                return;
            }
            lock.reportTimeout(ownerId, start);
            result.complete(false);
        });
    }

    /** @return whether the call must stop here: the client closed, or the caller cancelled */
    private boolean stopped() {
        if (engine.isClosed()) {
            end(engine.closedException(lock.name, null));
            return true;
        }
        if (cancelled) {
            lock.abandonWait(ownerId).whenComplete((ignored, error) -> settle(false));
            return true;
        }
        return false;
    }

    private void end(Throwable failure) {
        settle(false);
        result.completeExceptionally(failure);
    }

    private void settle(boolean acquired) {
        ChannelWaiters channel = waiters;
        waiters = null;
        if (channel != null) {
            channel.leave();
        }
        lock.acquisitionEnded(this, acquired, leaseMillis);
        settled.complete(null);
    }

    private long remainingMillis() {
        if (waitMillis < 0) {
            return Long.MAX_VALUE;
        }
        return TimeUnit.NANOSECONDS.toMillis(start + TimeUnit.MILLISECONDS.toNanos(waitMillis) - System.nanoTime());
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
    }
}
