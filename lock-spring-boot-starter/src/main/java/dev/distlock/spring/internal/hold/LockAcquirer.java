package dev.distlock.spring.internal.hold;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.LockShutdownException;
import dev.distlock.spring.LockType;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Takes the lock of a {@link LockRequest}, blocking or not, for {@link LockExecutor}: builds the
 * lock, tells the observer and the {@link HoldIndex} of the wait and its outcome, and turns a grant
 * into a {@link Hold}.
 *
 * <p>At shutdown every acquisition still waiting is stopped ({@link #abortWaits}): a blocking caller
 * is interrupted out of its wait, a pending future is cancelled, and both are refused with
 * {@link LockShutdownException}. A grant that arrives once shutdown has begun is given back at once,
 * so no waiter takes the lock while the application drains.
 */
final class LockAcquirer {

    private final LockFactory factory;
    private final HoldIndex index;
    private final Supplier<LockObserver> observer;
    private final Consumer<Hold> holdStarted;
    private final BooleanSupplier shuttingDown;
    private final Function<Hold, CompletionStage<Void>> releaseAsync;
    private final Set<Acquisition> waiting = ConcurrentHashMap.newKeySet();

    /**
     * Creates the acquirer.
     * @param factory builds locks by name and type
     * @param index holds and waiters
     * @param observer hears every acquisition and hold
     * @param holdStarted told of every new hold (starts its max-hold timer)
     * @param shuttingDown whether acquisitions are refused
     * @param releaseAsync releases a hold granted after its caller cancelled
     */
    LockAcquirer(
            LockFactory factory,
            HoldIndex index,
            Supplier<LockObserver> observer,
            Consumer<Hold> holdStarted,
            BooleanSupplier shuttingDown,
            Function<Hold, CompletionStage<Void>> releaseAsync) {
        this.factory = factory;
        this.index = index;
        this.observer = observer;
        this.holdStarted = holdStarted;
        this.shuttingDown = shuttingDown;
        this.releaseAsync = releaseAsync;
    }

    /**
     * Tries to acquire the request's lock for an owner, blocking the calling thread while it waits.
     * @param request what to lock
     * @param ownerId thread id or an id from {@link RedisLock#newOwnerId()}
     * @param thread the holding thread, or {@code null} for an asynchronous hold
     * @return the hold, or {@code null} when the wait ran out
     * @throws InterruptedException if interrupted while waiting
     * @throws LockShutdownException if the application is shutting down, or begins to while this waits
     * @throws LockException if Redis fails
     */
    @Nullable
    Hold tryAcquire(LockRequest request, long ownerId, @Nullable Thread thread) throws InterruptedException {
        Acquisition acquisition = begin(request, ownerId, thread, Thread.currentThread());
        if (shuttingDown.getAsBoolean()) {
            // Shutdown began as this acquisition registered: it may have missed the abort.
            acquisition.abort();
        }
        boolean acquired;
        Long token = null;
        try (LockObserver.Scope scope = acquisition.observation.openScope()) {
            if (acquisition.lock instanceof FencedLock fenced) {
                OptionalLong issued = fenced.tryLockAndGetToken(
                        waitMillis(request.waitTime()), millis(request.leaseTime()), TimeUnit.MILLISECONDS, ownerId);
                acquired = issued.isPresent();
                token = acquired ? issued.getAsLong() : null;
            } else {
                acquired = acquisition.lock.tryLock(
                        waitMillis(request.waitTime()), millis(request.leaseTime()), TimeUnit.MILLISECONDS, ownerId);
            }
        } catch (InterruptedException ex) {
            if (acquisition.stopWaiting()) {
                LockShutdownException refused = shutdown(request);
                acquisition.ended(false, null, refused);
                throw refused;
            }
            acquisition.ended(false, null, ex);
            throw ex;
        } catch (RuntimeException ex) {
            acquisition.stopWaiting();
            acquisition.ended(false, null, ex);
            throw ex;
        }
        acquisition.stopWaiting();
        // Outside the acquisition's scope: the hold's observation is a sibling, not a child, of it.
        Hold hold = acquisition.ended(acquired, token, null);
        if (hold != null && shuttingDown.getAsBoolean()) {
            // Granted as shutdown began: give it back before the client closes, and run nothing.
            releaseAsync.apply(hold).toCompletableFuture().join();
            throw shutdown(request);
        }
        return hold;
    }

    /**
     * Tries to acquire the request's lock for an owner without blocking: the wait runs in the
     * lock client, and the returned future completes on whichever thread completes the client's
     * (a Redis I/O or timer thread). Cancelling the returned future abandons the wait; a hold
     * granted as the cancel raced is released, so a cancelled acquisition never leaves the lock held.
     * @param request what to lock
     * @param ownerId an id from {@link RedisLock#newOwnerId()}
     * @return completes with the hold, or with {@code null} when the wait ran out
     * @throws LockShutdownException if the application is shutting down
     */
    CompletableFuture<@Nullable Hold> tryAcquireAsync(LockRequest request, long ownerId) {
        Acquisition acquisition = begin(request, ownerId, null, null);
        CompletableFuture<?> pending;
        try (LockObserver.Scope scope = acquisition.observation.openScope()) {
            pending = acquisition.lock instanceof FencedLock fenced
                    ? fenced.tryLockAndGetTokenAsync(
                                    waitMillis(request.waitTime()),
                                    millis(request.leaseTime()),
                                    TimeUnit.MILLISECONDS,
                                    ownerId)
                            .toCompletableFuture()
                    : acquisition
                            .lock
                            .tryLockAsync(
                                    waitMillis(request.waitTime()),
                                    millis(request.leaseTime()),
                                    TimeUnit.MILLISECONDS,
                                    ownerId)
                            .toCompletableFuture();
        } catch (RuntimeException ex) {
            acquisition.ended(false, null, ex);
            throw ex;
        }
        CompletableFuture<@Nullable Hold> result = new CompletableFuture<>();
        acquisition.abort = () -> {
            result.completeExceptionally(shutdown(request));
            pending.cancel(false);
        };
        if (shuttingDown.getAsBoolean()) {
            acquisition.abort();
        }
        pending.whenComplete((value, error) -> {
            Hold hold;
            try {
                Throwable cause = unwrap(error);
                boolean acquired = cause == null && (value instanceof Long || Boolean.TRUE.equals(value));
                hold = acquisition.ended(acquired, value instanceof Long token ? token : null, cause);
                if (cause != null) {
                    result.completeExceptionally(cause);
                    return;
                }
            } catch (RuntimeException ex) {
                result.completeExceptionally(ex);
                return;
            }
            if (hold != null && shuttingDown.getAsBoolean()) {
                result.completeExceptionally(shutdown(request));
            }
            if (!result.complete(hold) && hold != null) {
                // Granted as the caller cancelled or shutdown began: nobody will ever release it but us.
                releaseAsync.apply(hold);
            }
        });
        result.whenComplete((hold, error) -> {
            if (result.isCancelled()) {
                pending.cancel(false);
            }
        });
        return result;
    }

    /** Stops every acquisition still waiting; called once shutdown has begun. */
    void abortWaits() {
        waiting.forEach(Acquisition::abort);
    }

    private static LockShutdownException shutdown(LockRequest request) {
        return new LockShutdownException(
                request.names().size() == 1 ? request.names().get(0) : String.join(",", request.names()),
                request.description());
    }

    private Acquisition begin(
            LockRequest request, long ownerId, @Nullable Thread thread, @Nullable Thread blockedThread) {
        if (shuttingDown.getAsBoolean()) {
            throw shutdown(request);
        }
        if (request.fenced() && request.names().size() != 1) {
            // A multi lock has no single token: never hand out an unfenced hold as if it were fenced.
            throw new IllegalStateException(
                    request.description() + ": fenced = true needs exactly one lock name, the key gave "
                            + request.names().size());
        }
        if (request.type() == LockType.SEMAPHORE && request.names().size() != 1) {
            // Permits of several semaphores at once are no multi lock: refuse rather than guess.
            throw new IllegalStateException(request.description() + ": a semaphore key must give one value, it gave "
                    + request.names().size() + " " + request.names());
        }
        RedisLock lock = request.type() == LockType.SEMAPHORE
                ? factory.permit(request.names().get(0), request.permits())
                : request.names().size() == 1
                        ? factory.lock(request.names().get(0), request.type(), request.fenced())
                        : factory.multi(request.names(), request.type());
        return new Acquisition(request, lock, ownerId, thread, blockedThread);
    }

    /** One acquisition under way: its bookkeeping from the first try to the outcome. */
    private final class Acquisition {

        final LockRequest request;
        final RedisLock lock;
        final long ownerId;
        final @Nullable Thread thread;
        final LockObserver.Acquiring observation;
        final Object waiter;
        /** The thread blocked in a blocking acquisition, interrupted to stop its wait. */
        final @Nullable Thread blockedThread;
        /** Stops a non-blocking acquisition. */
        volatile @Nullable Runnable abort;

        private boolean waitOver;
        private boolean aborted;

        Acquisition(
                LockRequest request,
                RedisLock lock,
                long ownerId,
                @Nullable Thread thread,
                @Nullable Thread blockedThread) {
            this.request = request;
            this.lock = lock;
            this.ownerId = ownerId;
            this.thread = thread;
            this.blockedThread = blockedThread;
            this.observation = observer.get().acquireStarted(request, ownerId);
            this.waiter = index.waitStarted(request, thread);
            waiting.add(this);
        }

        /**
         * Stops the wait, unless it is over; the interrupt is sent under the lock that
         * {@link #stopWaiting} takes. Called again when shutdown raced the acquisition's start.
         */
        synchronized void abort() {
            if (waitOver) {
                return;
            }
            aborted = true;
            Runnable stop = abort;
            if (stop != null) {
                stop.run();
            } else if (blockedThread != null) {
                blockedThread.interrupt();
            }
        }

        /**
         * Ends a blocking wait: from now on {@link #abort} sends no interrupt, and one it sent is
         * cleared, since it was meant for the wait only.
         * @return whether shutdown aborted the wait
         */
        synchronized boolean stopWaiting() {
            waitOver = true;
            if (aborted) {
                Thread.interrupted();
            }
            return aborted;
        }

        @Nullable
        Hold ended(boolean acquired, @Nullable Long token, @Nullable Throwable error) {
            waiting.remove(this);
            if (error != null) {
                index.waitEnded(waiter);
                observation.ended(LockObserver.Outcome.ERROR, error);
                return null;
            }
            if (!acquired) {
                index.waitEnded(waiter);
                observation.ended(LockObserver.Outcome.TIMEOUT, null);
                return null;
            }
            Hold hold = new Hold(request, lock, ownerId, thread, token, observation.acquired());
            // Indexed before the wait ends, so that a shutdown drain never sees neither.
            index.add(hold);
            index.waitEnded(waiter);
            holdStarted.accept(hold);
            return hold;
        }
    }

    private static @Nullable Throwable unwrap(@Nullable Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    private static long millis(Duration duration) {
        return duration.isNegative() ? -1 : duration.toMillis();
    }

    /** A negative wait ({@code "-1"}) waits as long as it takes; lock-core's {@code tryLock} reads -1 as Redisson does (one attempt). */
    private static long waitMillis(Duration wait) {
        return wait.isNegative() ? RedisLock.WAIT_FOREVER : wait.toMillis();
    }
}
