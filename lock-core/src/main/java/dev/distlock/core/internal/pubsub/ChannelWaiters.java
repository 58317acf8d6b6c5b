package dev.distlock.core.internal.pubsub;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * The local waiters of one unlock channel. Wake-ups are semaphore permits, not condition signals,
 * so a message that arrives between a failed attempt and the park is not lost.
 */
public final class ChannelWaiters {

    final CompletableFuture<Void> ready = new CompletableFuture<>();
    @Nullable ScheduledFuture<?> unsubscribeTask;
    /** Whether the server confirmed the subscription and nothing since suggests it was lost. */
    volatile boolean confirmed;
    /** Whether a subscription attempt is in flight or scheduled, so that retries do not pile up. */
    boolean subscribing;
    /** Subscribe confirmations the server sent for the channel; every one after the first is a re-subscription. */
    final AtomicInteger confirmations = new AtomicInteger();

    private final String channel;
    private final @Nullable String alias;
    private final @Nullable Runnable onUnclaimed;
    private final @Nullable Runnable onIdle;
    private final UnlockSubscriptions owner;
    private final Semaphore permits = new Semaphore(0);
    private final AtomicInteger refs = new AtomicInteger();

    ChannelWaiters(String channel, @Nullable String alias, @Nullable Runnable onUnclaimed, @Nullable Runnable onIdle,
            UnlockSubscriptions owner) {
        this.channel = channel;
        this.alias = alias;
        this.onUnclaimed = onUnclaimed;
        this.onIdle = onIdle;
        this.owner = owner;
    }

    /** @return the channel name */
    public String channel() {
        return channel;
    }

    /** @return the client-specific channel that also wakes these waiters, or {@code null} */
    public @Nullable String alias() {
        return alias;
    }

    /** @return how many local callers wait on this channel now */
    public int waiting() {
        return refs.get();
    }

    /** @return completes when the first SUBSCRIBE was confirmed, or exceptionally when it failed */
    public CompletableFuture<Void> ready() {
        return ready;
    }

    /**
     * Parks until a wake-up arrives or the time passes.
     * @param timeoutMillis longest park
     * @return whether a wake-up arrived
     * @throws InterruptedException if interrupted while parked
     */
    public boolean await(long timeoutMillis) throws InterruptedException {
        return permits.tryAcquire(Math.max(0, timeoutMillis), TimeUnit.MILLISECONDS);
    }

    /** Leaves the channel; the last waiter to leave schedules its unsubscription. */
    public void leave() {
        if (refs.decrementAndGet() == 0 && alias != null && permits.tryAcquire()) {
            // The last waiter leaves with a wake-up nobody used: it may have been meant for this
            // client alone (targeted), so pass it on rather than let other clients sleep.
            unclaimed();
        }
        owner.left(this);
    }

    String[] names() {
        return alias == null ? new String[] {channel} : new String[] {channel, alias};
    }

    void joined() {
        refs.incrementAndGet();
        owner.cancelUnsubscribe(this);
    }

    int refs() {
        return refs.get();
    }

    void unclaimed() {
        if (onUnclaimed != null) {
            onUnclaimed.run();
        }
    }

    void idle() {
        if (onIdle != null) {
            onIdle.run();
        }
    }

    void wakeOne() {
        // A permit beyond the number of waiters would only cost a later waiter a useless attempt.
        if (permits.availablePermits() < refs.get()) {
            permits.release();
        }
    }

    /** Wakes the waiters present, so that they re-check the lock; a channel nobody waits on keeps no permit. */
    void wakeWaiting() {
        if (refs.get() > 0) {
            wakeAll();
        }
    }

    void wakeAll() {
        int missing = Math.max(1, refs.get()) - permits.availablePermits();
        if (missing > 0) {
            permits.release(missing);
        }
    }
}
