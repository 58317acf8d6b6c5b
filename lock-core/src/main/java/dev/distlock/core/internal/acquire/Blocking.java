package dev.distlock.core.internal.acquire;

import dev.distlock.core.LockException;
import dev.distlock.core.internal.Failures;
import dev.distlock.core.internal.engine.LockEngine;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * The blocking API as a thin layer over the asynchronous one: waits for a call's future, with the
 * blocking methods' interrupt rules. The first attempt of a call that tries at once is sent from the
 * calling thread, which parks on that reply's own future: the uncontended call ends there, with no
 * stage between the reply and the caller.
 */
public final class Blocking {

    private Blocking() {}

    /**
     * Starts an acquisition and waits for it.
     * @param engine the lock's engine
     * @param name the lock's name, for messages
     * @param acquisition the acquisition, not started yet
     * @param interruptible whether an interrupt abandons the wait (else the flag is restored afterwards)
     * @return whether the lock was acquired
     * @throws InterruptedException if interruptible and interrupted, before or while waiting
     */
    public static boolean acquire(
            LockEngine engine, String name, SingleKeyAcquisition acquisition, boolean interruptible)
            throws InterruptedException {
        engine.calls().ensureOpen(name);
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + name + "'");
        }
        // Heard on this thread, as before the engine became asynchronous: listeners that label
        // holds with the acquiring thread (timelines, logs) keep seeing the caller.
        acquisition.reportAcquiredLater();
        long firstDeadline = acquisition.firstAttemptDeadline();
        CompletableFuture<@Nullable Long> first = acquisition.startOnThisThread();
        if (first != null && !awaitFirstReply(engine, name, acquisition, first, firstDeadline, interruptible)) {
            join(acquisition.settled());
            throw new InterruptedException("interrupted while acquiring lock '" + name + "'");
        }
        boolean acquired = acquire(acquisition, acquisition.result(), interruptible);
        if (acquired) {
            acquisition.reportAcquired();
        }
        return acquired;
    }

    /**
     * Waits on this thread for the reply of the first attempt, sent from it, and goes on from it:
     * in the usual uncontended case the call ends here, granted, without a stage between the reply
     * and the caller. An interrupt (when interruptible) cancels the call once the reply is in, as an
     * interrupt of the wait for the call's future does: the reply decides what must be given back.
     * @return {@code false} when the call was cancelled for an interrupt
     */
    private static boolean awaitFirstReply(
            LockEngine engine,
            String name,
            SingleKeyAcquisition acquisition,
            CompletableFuture<@Nullable Long> reply,
            long deadline,
            boolean interruptible) {
        CompletableFuture<@Nullable Long> awaited =
                engine.replies().awaitOnThisThread(reply, name, "acquire", deadline);
        boolean cancelled = false;
        // The wait restored the flag of an interrupt it deferred.
        if (interruptible && Thread.interrupted()) {
            cancelled = acquisition.result().cancel(false);
            if (!cancelled) {
                Thread.currentThread().interrupt();
            }
        }
        acquisition.firstReplied(reply, awaited);
        return !cancelled;
    }

    /**
     * Waits for an acquisition.
     * @param acquisition the started acquisition
     * @param result its future
     * @param interruptible whether an interrupt abandons the wait (else the flag is restored afterwards)
     * @return whether the lock was acquired
     * @throws InterruptedException if interruptible and interrupted while waiting; the call has
     *     cleaned up (left queues, given back a racing grant) by the time this is thrown
     */
    public static boolean acquire(
            SingleKeyAcquisition acquisition, CompletableFuture<Boolean> result, boolean interruptible)
            throws InterruptedException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return result.get();
                } catch (InterruptedException ex) {
                    if (!interruptible) {
                        interrupted = true;
                        continue;
                    }
                    if (!result.cancel(false)) {
                        // Decided before the interrupt: report it, keeping the interrupt for the caller.
                        interrupted = true;
                        continue;
                    }
                    join(acquisition.settled());
                    throw ex;
                } catch (ExecutionException ex) {
                    throw rethrow(ex.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits for a future without being interruptible (a release must complete even for an
     * interrupted caller); the interrupt flag is restored afterwards.
     * @param future the future
     * @param <T> its type
     * @return its value
     */
    public static <T> T join(CompletableFuture<T> future) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException ex) {
                    interrupted = true;
                } catch (ExecutionException ex) {
                    throw rethrow(ex.getCause());
                } catch (CancellationException ex) {
                    throw new LockException("The lock call was cancelled", ex);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static RuntimeException rethrow(Throwable failure) {
        Throwable cause = Failures.cause(failure);
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new LockException(String.valueOf(cause.getMessage()), cause);
    }
}
