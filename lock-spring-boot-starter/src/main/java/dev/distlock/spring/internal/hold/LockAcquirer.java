package dev.distlock.spring.internal.hold;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.LockShutdownException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
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
 */
final class LockAcquirer {

    private final LockFactory factory;
    private final HoldIndex index;
    private final Supplier<LockObserver> observer;
    private final Consumer<Hold> holdStarted;
    private final BooleanSupplier shuttingDown;
    private final Function<Hold, CompletionStage<Void>> releaseAsync;

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
     * @throws LockException if Redis fails
     */
    @Nullable
    Hold tryAcquire(LockRequest request, long ownerId, @Nullable Thread thread) throws InterruptedException {
        Acquisition acquisition = begin(request, ownerId, thread);
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
        } catch (InterruptedException | RuntimeException ex) {
            acquisition.ended(false, null, ex);
            throw ex;
        }
        // Outside the acquisition's scope: the hold's observation is a sibling, not a child, of it.
        return acquisition.ended(acquired, token, null);
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
        Acquisition acquisition = begin(request, ownerId, null);
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
            if (!result.complete(hold) && hold != null) {
                // Granted as the caller cancelled: nobody will ever release it but us.
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

    private Acquisition begin(LockRequest request, long ownerId, @Nullable Thread thread) {
        if (shuttingDown.getAsBoolean()) {
            throw new LockShutdownException(
                    request.names().size() == 1 ? request.names().get(0) : String.join(",", request.names()),
                    request.description());
        }
        if (request.fenced() && request.names().size() != 1) {
            // A multi lock has no single token: never hand out an unfenced hold as if it were fenced.
            throw new IllegalStateException(
                    request.description() + ": fenced = true needs exactly one lock name, the key gave "
                            + request.names().size());
        }
        RedisLock lock = request.names().size() == 1
                ? factory.lock(request.names().get(0), request.type(), request.fenced())
                : factory.multi(request.names(), request.type());
        return new Acquisition(request, lock, ownerId, thread);
    }

    /** One acquisition under way: its bookkeeping from the first try to the outcome. */
    private final class Acquisition {

        final LockRequest request;
        final RedisLock lock;
        final long ownerId;
        final @Nullable Thread thread;
        final LockObserver.Acquiring observation;
        final Object waiter;

        Acquisition(LockRequest request, RedisLock lock, long ownerId, @Nullable Thread thread) {
            this.request = request;
            this.lock = lock;
            this.ownerId = ownerId;
            this.thread = thread;
            this.observation = observer.get().acquireStarted(request, ownerId);
            this.waiter = index.waitStarted(request, thread);
        }

        @Nullable
        Hold ended(boolean acquired, @Nullable Long token, @Nullable Throwable error) {
            index.waitEnded(waiter);
            if (error != null) {
                observation.ended(LockObserver.Outcome.ERROR, error);
                return null;
            }
            if (!acquired) {
                observation.ended(LockObserver.Outcome.TIMEOUT, null);
                return null;
            }
            Hold hold = new Hold(request, lock, ownerId, thread, token, observation.acquired());
            index.add(hold);
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
