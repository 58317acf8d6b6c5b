package dev.distlock.spring.internal.hold;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The two clocks a hold can run against besides its lease: the minimum hold
 * ({@code minHold}), which defers a release, and {@code distlock.watchdog.max-hold}, which caps a
 * hold the watchdog would renew for ever. Each runs on a daemon thread of its own, started on
 * first use, so that no caller thread sleeps.
 */
final class HoldTimers implements AutoCloseable {

    private final @Nullable Duration maxHold;
    private final @Nullable ScheduledExecutorService maxHoldTimer;
    private volatile @Nullable ScheduledExecutorService minHoldTimer;

    HoldTimers(@Nullable Duration maxHold) {
        this.maxHold = maxHold;
        this.maxHoldTimer = maxHold == null ? null : daemonTimer("distlock-max-hold");
    }

    @Nullable
    Duration maxHold() {
        return maxHold;
    }

    /**
     * Caps a watchdog-renewed hold at the max-hold, when one is set.
     * @param hold the new hold
     * @param reached runs when the cap is reached before the release
     */
    void startMaxHold(Hold hold, Consumer<Hold> reached) {
        ScheduledExecutorService timer = maxHoldTimer;
        if (timer != null && maxHold != null && hold.request.leaseTime().isNegative()) {
            hold.maxHoldTask = timer.schedule(() -> reached.accept(hold), maxHold.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    void stopMaxHold(Hold hold) {
        var task = hold.maxHoldTask;
        if (task != null) {
            task.cancel(false);
        }
    }

    /**
     * Defers the release of a hold whose minimum hold is not over: it stays held and renewed, and
     * {@code release} runs when the time is up.
     * @return whether the release was deferred
     */
    boolean deferRelease(Hold hold, Consumer<Hold> release) {
        Duration minHold = hold.request.minHold();
        if (minHold.isZero() || hold.deferred || hold.unlocked.get() || hold.lost) {
            return false;
        }
        long remaining = minHold.toNanos() - (System.nanoTime() - hold.acquiredNanos);
        if (remaining <= 0) {
            return false;
        }
        hold.deferred = true;
        minHoldTimer().schedule(() -> release.accept(hold), remaining, TimeUnit.NANOSECONDS);
        return true;
    }

    private synchronized ScheduledExecutorService minHoldTimer() {
        ScheduledExecutorService timer = minHoldTimer;
        if (timer == null) {
            timer = daemonTimer("distlock-min-hold");
            minHoldTimer = timer;
        }
        return timer;
    }

    private static ScheduledExecutorService daemonTimer(String name) {
        return Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public void close() {
        for (ScheduledExecutorService timer : new ScheduledExecutorService[] {maxHoldTimer, minHoldTimer}) {
            if (timer != null) {
                timer.shutdownNow();
            }
        }
    }
}
