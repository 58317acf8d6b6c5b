package dev.distlock.core.internal;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Stages derived from an acquisition that a caller may cancel. A plain dependent stage
 * ({@code thenApply}) does not pass a cancel back to the acquisition it depends on, so the
 * acquisition would go on waiting and take the lock for nobody; and a cancel that comes just after
 * the acquisition won, before the derived stage completed, must release the hold nobody will use.
 */
public final class AcquiredStages {

    private AcquiredStages() {}

    /**
     * Returns a stage that completes with what {@code map} makes of the acquisition's outcome, and
     * whose cancel cancels the acquisition, or releases what it took when it had already won.
     * @param acquisition completes with whether the lock was acquired; cancelling it abandons the wait
     * @param map turns the outcome into the derived stage's value (runs on the acquisition's thread)
     * @param release releases one hold of the owner, for a grant the caller cancelled too late to stop
     * @param <T> the derived value
     * @return the derived stage
     */
    public static <T> CompletableFuture<T> derive(
            CompletableFuture<Boolean> acquisition,
            Function<Boolean, T> map,
            Supplier<? extends CompletableFuture<?>> release) {
        CompletableFuture<T> derived = new CompletableFuture<>();
        acquisition.whenComplete((acquired, failure) -> {
            if (failure != null) {
                derived.completeExceptionally(Failures.cause(failure));
                return;
            }
            boolean delivered;
            try {
                delivered = derived.complete(map.apply(acquired));
            } catch (RuntimeException ex) {
                // The caller learns of no hold, so it must not keep one either.
                derived.completeExceptionally(ex);
                delivered = false;
            }
            if (!delivered && Boolean.TRUE.equals(acquired)) {
                // The caller cancelled after the acquisition won: nobody will unlock this hold.
                release.get();
            }
        });
        derived.whenComplete((value, failure) -> {
            if (derived.isCancelled()) {
                // If the acquisition already won, the completion above finds the derived stage
                // cancelled and releases the hold; otherwise this abandons the wait.
                acquisition.cancel(false);
            }
        });
        return derived;
    }
}
