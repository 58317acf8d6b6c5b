package dev.distlock.core.internal.engine;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The pauses of one client's lock calls (a waiter's bounded park, a wait for the connection),
 * timed by the client's scheduler and all ended at close, when the scheduler that would end them
 * stops.
 */
final class CallDelays {

    private final ScheduledExecutorService scheduler;
    /** Pending delays, completed by {@link #endAll()}. */
    private final Set<CompletableFuture<Void>> pending = ConcurrentHashMap.newKeySet();

    CallDelays(ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
    }

    /**
     * Completes after a delay, on the scheduler; at once if the scheduler was stopped.
     * @param millis the delay
     * @return completes when the time is up; completing it early cancels the timer
     */
    CompletableFuture<Void> delay(long millis) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        pending.add(done);
        try {
            ScheduledFuture<?> task =
                    scheduler.schedule(() -> done.complete(null), Math.max(0, millis), TimeUnit.MILLISECONDS);
            done.whenComplete((ignored, failure) -> {
                task.cancel(false);
                pending.remove(done);
            });
        } catch (RejectedExecutionException ex) {
            pending.remove(done);
            done.complete(null);
        }
        return done;
    }

    /** Ends every pending delay; after the scheduler was stopped. */
    void endAll() {
        List.copyOf(pending).forEach(delay -> delay.complete(null));
    }
}
