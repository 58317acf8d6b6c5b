package dev.distlock.core.internal.pubsub;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The local waiters of one unlock channel. A parked waiter is a future, not a thread: a wake-up
 * completes the oldest one, and a wake-up that finds nobody parked is kept as a permit, so a message
 * that arrives between a failed attempt and the next park is not lost.
 */
public final class ChannelWaiters {

    /** Where the channel's subscription stands; moved by {@link UnlockSubscriptions} as it sends the commands. */
    final ChannelSubscription subscription = new ChannelSubscription();

    private final String channel;
    private final @Nullable String alias;
    private final @Nullable Runnable onUnclaimed;
    private final @Nullable Runnable onIdle;
    private final UnlockSubscriptions owner;
    /** Wake-ups that found nobody parked; guarded by {@code this}. */
    private int permits;
    /** Parked waiters, oldest first; guarded by {@code this}. */
    private final ArrayDeque<CompletableFuture<Boolean>> parked = new ArrayDeque<>();

    private final AtomicInteger refs = new AtomicInteger();

    ChannelWaiters(
            String channel,
            @Nullable String alias,
            @Nullable Runnable onUnclaimed,
            @Nullable Runnable onIdle,
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

    /** @return whether the channel is subscribed, confirmed by the server, with no sign of a lost subscription since */
    public boolean confirmed() {
        return subscription.confirmed();
    }

    /** @return how many local callers wait on this channel now */
    public int waiting() {
        return refs.get();
    }

    /** @return completes when the first SUBSCRIBE was confirmed, or exceptionally when it failed */
    public CompletableFuture<Void> ready() {
        return subscription.ready;
    }

    /**
     * Parks until a wake-up arrives or the time passes, without holding a thread: the returned
     * future completes with {@code true} on a wake-up (at once when one is pending) and with
     * {@code false} when the time passed. Cancelling it unparks the waiter; a wake-up never
     * goes to a cancelled waiter.
     * @param timeoutMillis longest park
     * @param timer completes the park when its time is up
     * @return whether a wake-up arrived
     */
    public CompletableFuture<Boolean> park(long timeoutMillis, ScheduledExecutorService timer) {
        CompletableFuture<Boolean> waiter = new CompletableFuture<>();
        synchronized (this) {
            if (permits > 0) {
                permits--;
                return CompletableFuture.completedFuture(true);
            }
            parked.add(waiter);
        }
        ScheduledFuture<?> timeout;
        try {
            timeout = timer.schedule(() -> waiter.complete(false), Math.max(0, timeoutMillis), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException ex) {
            // The client is closing: the caller finds out when it resumes.
            waiter.complete(false);
            timeout = null;
        }
        ScheduledFuture<?> task = timeout;
        waiter.whenComplete((woken, failure) -> {
            if (task != null) {
                task.cancel(false);
            }
            if (!Boolean.TRUE.equals(woken)) {
                synchronized (this) {
                    parked.remove(waiter);
                }
            }
        });
        return waiter;
    }

    /**
     * Hands on a wake-up that reached a waiter which then gave up without trying the lock: to the
     * next local waiter, or kept for one about to park; if nobody here waits any more, the last
     * waiter's {@link #leave()} passes it to other clients where wake-ups are targeted.
     */
    public void passOn() {
        wakeOne();
    }

    /** Leaves the channel; the last waiter to leave schedules its unsubscription. */
    public void leave() {
        if (refs.decrementAndGet() == 0 && alias != null && takePermit()) {
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

    private synchronized boolean takePermit() {
        if (permits == 0) {
            return false;
        }
        permits--;
        return true;
    }

    /** @return how many wake-ups wait for a waiter about to park, for tests and diagnostics */
    synchronized int permits() {
        return permits;
    }

    /** @return how many waiters are parked now, for tests and diagnostics */
    public synchronized int parked() {
        return parked.size();
    }

    /**
     * Hands on a wake-up meant for this client alone (targeted): to a local waiter, or kept for one
     * about to park; when no waiter is left to take it, it is passed on, as nobody else was told.
     */
    void wakeOneTargeted() {
        if (!wakeOne()) {
            unclaimed();
        }
    }

    // Parked futures are completed outside the monitor: completing one runs the waiter's next step,
    // which may join or leave channels under the registry's monitor.
    /** @return {@code false} when no waiter is left on the channel to take the wake-up */
    boolean wakeOne() {
        while (true) {
            CompletableFuture<Boolean> waiter;
            synchronized (this) {
                waiter = parked.poll();
                if (waiter == null) {
                    // Decided under the monitor under which the last waiter to leave takes back an unused
                    // wake-up: either it finds this one kept, or this one finds it gone.
                    int waiting = refs.get();
                    if (waiting == 0) {
                        return false;
                    }
                    // A permit beyond the number of waiters would only cost a later waiter a useless attempt.
                    if (permits < waiting) {
                        permits++;
                    }
                    return true;
                }
            }
            if (waiter.complete(true)) {
                return true;
            }
        }
    }

    /** Wakes the waiters present, so that they re-check the lock; a channel nobody waits on keeps no permit. */
    void wakeWaiting() {
        if (refs.get() > 0) {
            wakeAll();
        }
    }

    void wakeAll() {
        ArrayDeque<CompletableFuture<Boolean>> woken;
        synchronized (this) {
            woken = new ArrayDeque<>(parked);
            parked.clear();
            // Waiters between an attempt and their park must find a wake-up too.
            int missing = Math.max(1, refs.get()) - woken.size() - permits;
            if (missing > 0) {
                permits += missing;
            }
        }
        woken.forEach(waiter -> waiter.complete(true));
    }
}
