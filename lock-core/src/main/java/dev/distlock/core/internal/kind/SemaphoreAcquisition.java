package dev.distlock.core.internal.kind;

import dev.distlock.core.internal.engine.Arguments;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.pubsub.ChannelWaiters;
import dev.distlock.core.internal.script.SemaphoreAcquire;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One wait for a permit: try, join the semaphore's channel, try again now that it listens, then
 * park until a release announces free permits or the earliest lease of a taken permit ends (when
 * the script gives it back), or at most a second when no taken permit has a known expiry, within
 * the wait. A waiter that takes a permit while the script reports
 * more available hands the wake-up on to the next local waiter, since one message may announce
 * several permits. A permit granted after the caller gave up (cancelled or interrupted) is given
 * back at once.
 */
final class SemaphoreAcquisition {

    /** Longest single park; a wait longer than this parks again. */
    private static final long MAX_PARK_MILLIS = TimeUnit.HOURS.toMillis(1);

    /**
     * Longest park when no taken permit has a known expiry (no permit taken, or the count gone with
     * a restart): only an announcement would end it, and one sent while the subscription was being
     * restored is never heard, so the waiter looks again this often.
     */
    static final long NO_EXPIRY_PARK_MILLIS = 1000;

    private final LockEngine engine;
    private final WatchdogPermits watchdogPermits;
    private final DefaultRedisSemaphore semaphore;
    private final long leaseMillis;
    private final long deadlineNanos;
    private final boolean forever;
    private final String permitId = newPermitId();
    private final CompletableFuture<@Nullable String> result = new CompletableFuture<>();

    private volatile @Nullable ChannelWaiters waiters;
    private volatile @Nullable CompletableFuture<Boolean> parked;

    SemaphoreAcquisition(
            LockEngine engine,
            WatchdogPermits watchdogPermits,
            DefaultRedisSemaphore semaphore,
            long leaseMillis,
            long waitMillis) {
        this.engine = engine;
        this.watchdogPermits = watchdogPermits;
        this.semaphore = semaphore;
        this.leaseMillis = leaseMillis;
        this.forever = waitMillis == Arguments.FOREVER;
        this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(forever ? 0 : waitMillis);
    }

    /** Redisson's ids are 16 random bytes as hex text; ours too. Not secure random: see LockEngine.newRequestId. */
    private static String newPermitId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    CompletableFuture<@Nullable String> start() {
        result.whenComplete((id, failure) -> leave());
        attempt();
        return result;
    }

    private void attempt() {
        if (result.isDone()) {
            return;
        }
        if (engine.isClosed()) {
            result.completeExceptionally(engine.calls().closedException(semaphore.getName(), null));
            return;
        }
        long lease = leaseMillis == LockEngine.WATCHDOG ? engine.watchdogMillis() : leaseMillis;
        engine.calls()
                .call(() -> new SemaphoreAcquire(
                                semaphore.key(),
                                semaphore.timeouts(),
                                semaphore.channel(),
                                permitId,
                                lease,
                                engine.connector().publishCommand())
                        .run(engine.scripts()))
                .whenComplete((reply, failure) -> {
                    if (failure != null) {
                        result.completeExceptionally(
                                engine.calls().failed(failure, semaphore.getName(), "take a permit of semaphore"));
                    } else {
                        try {
                            handle(reply);
                        } catch (RuntimeException ex) {
                            result.completeExceptionally(ex);
                        }
                    }
                });
    }

    private void handle(List<Long> reply) {
        if (reply.get(0) == 1) {
            granted(reply.get(1));
            return;
        }
        long remaining = forever ? MAX_PARK_MILLIS : TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (remaining <= 0) {
            result.complete(null);
            return;
        }
        ChannelWaiters joined = waiters;
        if (joined == null) {
            join(remaining);
            return;
        }
        long untilEarliestExpiry = reply.get(1);
        long park = Math.min(remaining, MAX_PARK_MILLIS);
        park = Math.min(park, untilEarliestExpiry >= 0 ? untilEarliestExpiry + 1 : NO_EXPIRY_PARK_MILLIS);
        CompletableFuture<Boolean> wake = joined.park(park, engine.scheduler());
        parked = wake;
        if (result.isDone()) {
            wake.cancel(false);
        }
        ChannelWaiters channel = joined;
        wake.whenComplete((woken, failure) -> {
            if (result.isDone()) {
                if (Boolean.TRUE.equals(woken)) {
                    channel.passOn();
                }
                return;
            }
            attempt();
        });
    }

    /**
     * Joins the semaphore's channel (opening the pub/sub connection on the connecting thread when
     * needed), then tries once more now that releases reach this client. While pub/sub cannot be
     * used, it tries again after a short delay instead.
     */
    private void join(long remainingMillis) {
        engine.calls()
                .whenConnected(
                        true,
                        () -> CompletableFuture.completedFuture(
                                engine.subscriptions().join(semaphore.channel())))
                .whenComplete((joined, failure) -> {
                    if (failure != null) {
                        if (engine.isClosed()) {
                            result.completeExceptionally(engine.calls().closedException(semaphore.getName(), failure));
                        } else {
                            engine.calls().delay(Math.min(remainingMillis, 500)).whenComplete((v, e) -> attempt());
                        }
                        return;
                    }
                    waiters = joined;
                    if (result.isDone()) {
                        leave();
                        return;
                    }
                    // A subscription not confirmed within a command timeout is retried by the
                    // registry; meanwhile parks are bounded by the earliest expiry of a taken permit.
                    long bound = Math.min(engine.options().commandTimeout().toMillis(), remainingMillis);
                    CompletableFuture.anyOf(joined.ready(), engine.calls().delay(bound))
                            .whenComplete((ignored, error) -> attempt());
                });
    }

    private void granted(long stillAvailable) {
        if (leaseMillis == LockEngine.WATCHDOG) {
            watchdogPermits.add(semaphore.getName(), semaphore.timeouts(), permitId);
        }
        ChannelWaiters joined = waiters;
        if (!result.complete(permitId)) {
            // The caller gave up while the attempt was under way: give the permit back.
            watchdogPermits.remove(semaphore.timeouts(), permitId);
            semaphore.give(permitId);
            return;
        }
        if (stillAvailable > 0 && joined != null) {
            joined.passOn();
        }
    }

    private void leave() {
        CompletableFuture<Boolean> wake = parked;
        if (wake != null) {
            wake.cancel(false);
        }
        ChannelWaiters joined;
        synchronized (this) {
            joined = waiters;
            waiters = null;
        }
        if (joined != null) {
            joined.leave();
        }
    }
}
