package dev.distlock.core.internal.engine;

import dev.distlock.core.LockException;
import dev.distlock.core.internal.Failures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A Redis call that was refused unwritten because the client is not connected (it reconnects by
 * itself), tried again at every reconnect until it is written or its deadline passes. A call a
 * Redis Cluster node refused to run during a live slot migration ({@code TRYAGAIN}) is tried again
 * the same way, every {@value #RECHECK_MILLIS} ms.
 *
 * <p>Why this, and not Lettuce queueing commands while disconnected: a queued command is written
 * whenever the connection comes back, however long after its caller gave up, and the commands in
 * flight when a connection breaks are then replayed too. A lock script run that way leaves a hold
 * nobody knows about. So the connections refuse every write while disconnected, and fail (never
 * replay) what was in flight; the decision to write again is made here, by a caller that still
 * waits: never after the write deadline, never once the caller stopped wanting the call, and
 * never once this future was cancelled.
 *
 * <p>Cancelling this future cancels the write it made, if any, and only if that write has not been
 * answered yet: as for the write's own future, a reply and a cancel race on one future, so a reply
 * that won is delivered rather than lost.
 *
 * @param <T> reply type
 */
final class UnwrittenRetry<T> extends CompletableFuture<T> {

    /** Longest sleep between two tries, should the notice of a reconnect be missed or be another's. */
    static final long RECHECK_MILLIS = 100;

    private final RedisCalls calls;
    private final Supplier<CompletableFuture<T>> write;
    private final long writeBy;
    private final BooleanSupplier wanted;
    private final long since;
    private @Nullable CompletableFuture<T> written;
    private volatile boolean migrating;

    UnwrittenRetry(
            RedisCalls calls, Supplier<CompletableFuture<T>> write, long writeBy, BooleanSupplier wanted, long since) {
        this.calls = calls;
        this.write = write;
        this.writeBy = writeBy;
        this.wanted = wanted;
        this.since = since;
    }

    /**
     * Writes the call now, the caller being here; retries if it is refused unwritten.
     * @return this
     */
    UnwrittenRetry<T> start() {
        tryWrite(true);
        return this;
    }

    /** Tries again after the next connection change, or after a short while, whichever comes first. */
    private void retryAfter(CompletableFuture<Void> change) {
        long leftNanos = writeBy - System.nanoTime();
        if (leftNanos <= 0 || isDone()) {
            tryWrite(false);
            return;
        }
        CompletableFuture<Void> timer =
                calls.delay(Math.max(1, Math.min(RECHECK_MILLIS, TimeUnit.NANOSECONDS.toMillis(leftNanos))));
        CompletableFuture.anyOf(change, timer).whenComplete((ignored, error) -> {
            timer.complete(null);
            tryWrite(false);
        });
    }

    private void tryWrite(boolean first) {
        CompletableFuture<Void> change = calls.nextConnectionChange();
        CompletableFuture<T> sent;
        synchronized (this) {
            if (isDone()) {
                return;
            }
            if (calls.isClosed()) {
                completeExceptionally(calls.closedException("(client)", null));
                return;
            }
            if (!wanted.getAsBoolean()) {
                completeExceptionally(new LockException("abandoned while waiting for the connection"));
                return;
            }
            if (!first && writeBy - System.nanoTime() <= 0) {
                completeExceptionally(unreachable());
                return;
            }
            sent = calls.whenConnected(false, write);
            written = sent;
        }
        sent.whenComplete((reply, failure) -> {
            if (failure == null) {
                complete(reply);
            } else if (Failures.unwritten(failure) && !isDone()) {
                migrating = Failures.slotMigrating(failure);
                synchronized (this) {
                    written = null;
                }
                retryAfter(change);
            } else {
                completeExceptionally(Failures.cause(failure));
            }
        });
    }

    private LockException unreachable() {
        if (migrating) {
            return new LockException("Redis refused the call for "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since)
                    + " ms while a live slot migration had the lock's keys on two nodes (TRYAGAIN; the call runs"
                    + " once the move completes, but not within the call's deadline)");
        }
        return new LockException("Redis was unreachable for "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since)
                + " ms (not connected; the client reconnects by itself, but not within the call's deadline)");
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        CompletableFuture<T> sent;
        synchronized (this) {
            sent = written;
            if (sent == null) {
                return super.cancel(mayInterruptIfRunning);
            }
        }
        if (sent.cancel(mayInterruptIfRunning) || sent.isCompletedExceptionally()) {
            return super.cancel(mayInterruptIfRunning);
        }
        // Answered first: the reply is on its way to this future, as if it had beaten the cancel.
        return false;
    }
}
