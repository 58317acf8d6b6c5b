package dev.distlock.core.internal.composite;

import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One asynchronous acquisition of a composite lock, and who owns its outcome. The acquisition
 * completes its future itself ({@link #finish}, {@link #fail}); if the future completes any other
 * way first (the caller cancelled it), the acquisition is abandoned: it stops at its next step and
 * {@link #abandoned()} undoes what it holds. Exactly one of the two sides wins, under the
 * acquisition's monitor, so nothing taken is released twice or kept.
 */
abstract class CompositeAcquisition {

    /** The caller's future. */
    final CompletableFuture<Boolean> result = new CompletableFuture<>();

    private boolean finishing;
    private boolean abandoned;

    CompositeAcquisition() {
        result.whenComplete((acquired, failure) -> {
            synchronized (this) {
                if (finishing) {
                    return;
                }
                abandoned = true;
            }
            abandoned();
        });
    }

    /**
     * Returns whether the caller gave up on this acquisition; every step checks it before
     * starting member calls.
     * @return whether abandoned
     */
    final synchronized boolean isAbandoned() {
        return abandoned;
    }

    /**
     * Completes the acquisition with a result.
     * @param acquired whether every member needed is held
     */
    final void finish(boolean acquired) {
        synchronized (this) {
            if (abandoned) {
                return;
            }
            finishing = true;
        }
        if (!result.complete(acquired) && acquired) {
            // Cancelled between the check above and here: the caller will never release it.
            abandoned();
        }
    }

    /**
     * Fails the acquisition; what it took must already be released.
     * @param failure the failure
     */
    final void fail(Throwable failure) {
        synchronized (this) {
            if (abandoned) {
                return;
            }
            finishing = true;
        }
        result.completeExceptionally(failure);
    }

    /**
     * Undoes what the acquisition holds or is waiting for, once the caller gave up on it. Called
     * at most once, from the thread that cancelled or that lost the race to complete.
     */
    abstract void abandoned();

    /**
     * Returns the failure of a failed step, unwrapped.
     * @param failure the stage failure
     * @return the failure
     */
    static @Nullable Throwable cause(@Nullable Throwable failure) {
        return Members.unwrap(failure);
    }
}
