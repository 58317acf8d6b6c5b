package dev.distlock.core.internal.composite;

import dev.distlock.core.LockException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The blocking methods of a composite lock, as waits on its asynchronous ones: the calling thread
 * parks on the future and nothing else; an interrupt either cancels the acquisition or is deferred.
 */
public final class Await {

    private Await() {}

    /**
     * Waits for a result, deferring interrupts: the thread's interrupt flag is restored afterwards.
     * @param future the pending result
     * @param what what is awaited, for the message of an unexpected failure
     * @param <T> result type
     * @return the result
     */
    public static <T> T uninterruptibly(CompletableFuture<T> future, String what) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException ex) {
                    interrupted = true;
                } catch (ExecutionException ex) {
                    throw rethrow(ex, what);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits for an acquisition; an interrupt cancels it, which abandons its wait and undoes what it
     * took. If the acquisition completed as the interrupt arrived, a successful one is released
     * again with {@code release}, so that an interrupted caller never keeps a hold it was not told of.
     * @param acquisition the pending acquisition
     * @param release releases a successful acquisition (blocking, uninterruptible)
     * @param what what is awaited, for messages
     * @return whether acquired
     * @throws InterruptedException if the thread was interrupted while waiting
     */
    public static boolean interruptibly(CompletableFuture<Boolean> acquisition, Runnable release, String what)
            throws InterruptedException {
        try {
            return acquisition.get();
        } catch (InterruptedException ex) {
            if (!acquisition.cancel(false) && !acquisition.isCompletedExceptionally() && acquisition.join()) {
                release.run();
            }
            throw ex;
        } catch (ExecutionException ex) {
            throw rethrow(ex, what);
        }
    }

    private static RuntimeException rethrow(ExecutionException ex, String what) {
        Throwable cause = Members.unwrap(ex);
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        if (cause instanceof InterruptedException) {
            return new CancellationException(what + " was interrupted");
        }
        return new LockException(
                "Cannot " + what + ": " + (cause == null ? ex.getMessage() : cause.getMessage()), cause);
    }
}
