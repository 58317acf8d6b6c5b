package dev.distlock.core.internal.pubsub;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Where the subscription of one unlock channel stands: whether the server confirmed it, whether a
 * SUBSCRIBE is in flight or scheduled, which node a sharded one went to, whether the server restored
 * it on its own, and the pending unsubscription of an idle channel. {@link UnlockSubscriptions} reads
 * and moves it as it sends the commands; the fields without {@code volatile} are guarded by its monitor.
 */
final class ChannelSubscription {

    /** Completes when the first SUBSCRIBE was confirmed, or exceptionally when it failed. */
    final CompletableFuture<Void> ready = new CompletableFuture<>();

    /** Whether the server confirmed the subscription and nothing since suggests it was lost. */
    private volatile boolean confirmed;
    /** The node the latest sharded SSUBSCRIBE went to, or {@code null} (not sharded, or not known). */
    private volatile @Nullable String servedBy;
    /** Whether a subscription attempt is in flight or scheduled, so that retries do not pile up. */
    private boolean subscribing;
    /** Attempts that failed since the last confirmed one: the retry delay grows with them. */
    private int failures;
    /** Subscribe confirmations the server sent for the channel; every one after the first is a re-subscription. */
    private final AtomicInteger confirmations = new AtomicInteger();
    /** The unsubscription scheduled when the last waiter left, or {@code null}. */
    private @Nullable ScheduledFuture<?> unsubscribeTask;

    /** @return whether the channel is subscribed, confirmed by the server, with no sign of a lost subscription since */
    boolean confirmed() {
        return confirmed;
    }

    /** @return the node the latest sharded SSUBSCRIBE went to, or {@code null} */
    @Nullable
    String servedBy() {
        return servedBy;
    }

    /** @return whether a subscription attempt is in flight or scheduled */
    boolean subscribing() {
        return subscribing;
    }

    /**
     * A SUBSCRIBE is about to be sent.
     * @return whether it restores a subscription (the first one ended already), so that releases
     *     published in between were missed
     */
    boolean sending() {
        subscribing = true;
        return ready.isDone();
    }

    /** @param server the node a sharded SSUBSCRIBE goes to, or {@code null} when not sharded or not known */
    void sentTo(@Nullable String server) {
        servedBy = server;
    }

    /** The server confirmed the SUBSCRIBE just sent. */
    void succeeded() {
        subscribing = false;
        failures = 0;
        confirmed = true;
        ready.complete(null);
    }

    /** @param failure why the SUBSCRIBE just sent failed */
    void failed(Throwable failure) {
        subscribing = false;
        failures++;
        confirmed = false;
        ready.completeExceptionally(failure);
    }

    /**
     * Returns how long to wait before the next attempt: the first delay, doubled after each failure
     * in a row, at most the longest; so a refusal that lasts (a revoked channel permission) costs a
     * few commands a minute, and one that ends is noticed within the longest delay.
     * @param first the delay after the first failure
     * @param longest the delay never exceeded
     * @return the delay before the next attempt
     */
    Duration retryDelay(Duration first, Duration longest) {
        int doublings = Math.min(Math.max(failures - 1, 0), 16);
        Duration delay = first.multipliedBy(1L << doublings);
        return delay.compareTo(longest) > 0 ? longest : delay;
    }

    /** A retry of the subscription is scheduled: no other SUBSCRIBE is sent meanwhile. */
    void retryScheduled() {
        subscribing = true;
    }

    /** The scheduled retry runs now, or could not be scheduled. */
    void retryEnded() {
        subscribing = false;
    }

    /**
     * Something suggests the subscription was lost (a reconnect, an UNSUBSCRIBE from the server, a slot
     * that moved).
     * @return whether a SUBSCRIBE must be sent now: none is in flight or scheduled
     */
    boolean lost() {
        confirmed = false;
        return !subscribing;
    }

    /** @return whether the server confirmed a subscription of the channel before: this one restores it */
    boolean confirmedAgain() {
        return confirmations.getAndIncrement() > 0;
    }

    /** @param task the unsubscription scheduled for the idle channel */
    void unsubscribeLater(ScheduledFuture<?> task) {
        unsubscribeTask = task;
    }

    /** A waiter joined: the channel stays subscribed. */
    void keep() {
        ScheduledFuture<?> task = unsubscribeTask;
        if (task != null) {
            task.cancel(false);
            unsubscribeTask = null;
        }
    }

    /** The client closed: a waiter still waiting for the first SUBSCRIBE must not sit out the command timeout. */
    void closed() {
        ready.completeExceptionally(new IllegalStateException("lock client closed"));
    }
}
