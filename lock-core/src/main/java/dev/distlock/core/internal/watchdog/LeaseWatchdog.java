package dev.distlock.core.internal.watchdog;

import dev.distlock.core.internal.Failures;
import dev.distlock.core.internal.hold.Hold;
import dev.distlock.core.internal.hold.LocalHolds;
import dev.distlock.core.internal.layout.RedissonLayout;
import dev.distlock.core.internal.script.LuaScript;
import dev.distlock.core.internal.script.RenewHolds;
import dev.distlock.core.internal.script.ScriptExecutor;
import dev.distlock.core.internal.script.Scripts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews every watchdog hold of a client every third of the watchdog timeout, in as few Redis
 * calls as possible: one script call per renew script and cluster slot, up to {@value #BATCH}
 * holds each. All calls of a round are sent at once and their replies handled as they arrive, so
 * a slow or frozen node delays only the holds it serves; a hold whose renewal is still in flight is
 * not sent again.
 *
 * <p>Holds whose renewal finds them gone are reported lost and no longer renewed. Failures (an
 * error, a timeout, or a key the script could not read) are retried at the next round; when a
 * hold's renewals keep failing long enough that its lease is about to end, that is logged as a
 * warning naming the lock.
 */
public final class LeaseWatchdog {

    static final int BATCH = 256;

    private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);

    private final LocalHolds holds;
    private final ScriptExecutor executor;
    private final ToIntFunction<String> batchGroup;
    private final Consumer<Hold> onLost;
    private final long leaseMillis;
    private final Duration commandTimeout;
    private final Map<Hold, RenewalState> renewals = new ConcurrentHashMap<>();
    private final Supplier<CompletableFuture<Void>> connectionChange;
    private volatile Executor replies = Runnable::run;
    private volatile @Nullable ScheduledExecutorService timer;
    private @Nullable ScheduledFuture<?> task;

    /**
     * Creates a watchdog; call {@link #start(ScheduledExecutorService)} to run it.
     * @param holds the client's holds
     * @param executor runs the renew scripts
     * @param batchGroup maps a key to its batch (cluster slot)
     * @param onLost told of every hold found lost (after it was forgotten)
     * @param watchdogTimeout lease given at every renewal
     * @param commandTimeout bound on one renewal round trip
     * @param connectionChange completes when a connection may have become usable again, for a
     *     renewal refused while the client reconnects
     */
    public LeaseWatchdog(
            LocalHolds holds,
            ScriptExecutor executor,
            ToIntFunction<String> batchGroup,
            Consumer<Hold> onLost,
            Duration watchdogTimeout,
            Duration commandTimeout,
            Supplier<CompletableFuture<Void>> connectionChange) {
        this.connectionChange = connectionChange;
        this.holds = holds;
        this.executor = executor;
        this.batchGroup = batchGroup;
        this.onLost = onLost;
        this.leaseMillis = watchdogTimeout.toMillis();
        this.commandTimeout = commandTimeout;
    }

    /**
     * Starts renewing.
     * @param scheduler the client's scheduler; it also handles the replies
     */
    public synchronized void start(ScheduledExecutorService scheduler) {
        long period = Math.max(1, leaseMillis / 3);
        timer = scheduler;
        // Replies are handled off the connection's I/O thread: they may call listeners.
        replies = reply -> {
            try {
                scheduler.execute(reply);
            } catch (java.util.concurrent.RejectedExecutionException ex) {
                // The client is closing: its holds are forgotten anyway.
            }
        };
        task = scheduler.scheduleWithFixedDelay(this::renewAll, period, period, TimeUnit.MILLISECONDS);
    }

    /** Stops renewing; holds then expire after at most one watchdog timeout. */
    public synchronized void stop() {
        if (task != null) {
            task.cancel(false);
        }
    }

    /** Sends one renewal round now, without waiting for its replies; the scheduler calls this, tests may too. */
    public void renewAll() {
        Map<BatchKey, List<Hold>> batches = new LinkedHashMap<>();
        Map<Hold, Boolean> current = new IdentityHashMap<>();
        for (Hold hold : holds.snapshot()) {
            if (!hold.watchdog()) {
                continue;
            }
            current.put(hold, Boolean.TRUE);
            RenewalState renewal = renewals.computeIfAbsent(hold, h -> new RenewalState(System.nanoTime()));
            if (!hold.releasing() && !renewal.inFlight()) {
                batches.computeIfAbsent(
                                new BatchKey(hold.renewScript(), batchGroup.applyAsInt(hold.key())),
                                k -> new ArrayList<>())
                        .add(hold);
            }
        }
        renewals.keySet().removeIf(hold -> !current.containsKey(hold));
        batches.forEach((batchKey, batch) -> {
            for (int from = 0; from < batch.size(); from += BATCH) {
                send(batchKey.script(), batch.subList(from, Math.min(batch.size(), from + BATCH)));
            }
        });
    }

    private void send(LuaScript script, List<Hold> candidates) {
        send(script, candidates, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(1, leaseMillis / 3)));
    }

    /**
     * Sends one renewal batch. A batch refused unwritten while the client reconnects is sent again
     * as soon as the connection is back, until the next round would send it anyway: waiting for
     * that round could cost a third of the lease, and a short outage then ends more leases.
     */
    private void send(LuaScript script, List<Hold> candidates, long retryUntil) {
        CompletableFuture<Void> change = connectionChange.get();
        Sent sent;
        try {
            sent = holds.sendRenewal(() -> {
                List<Hold> batch = new ArrayList<>();
                for (Hold hold : candidates) {
                    RenewalState renewal = renewals.get(hold);
                    if (renewal != null && holds.renewable(hold) && renewal.begin()) {
                        batch.add(hold);
                    }
                }
                if (batch.isEmpty()) {
                    return null;
                }
                CompletableFuture<List<Long>> reply;
                try {
                    reply = new RenewHolds(
                                    script,
                                    batch.stream().map(Hold::key).toList(),
                                    leaseMillis,
                                    batch.stream().map(Hold::ownerField).toList(),
                                    readHoldTimeouts(script, batch))
                            .run(executor);
                } catch (RuntimeException ex) {
                    reply = CompletableFuture.failedFuture(ex);
                }
                return new Sent(batch, reply);
            });
        } catch (RuntimeException ex) {
            log.debug("Could not send a lease renewal of {} holds; retrying next round", candidates.size(), ex);
            return;
        }
        if (sent == null) {
            return;
        }
        // Lettuce times the call out after the command timeout; this bound only guards against a reply
        // that never settles. It runs on the client's scheduler rather than orTimeout's JVM-wide thread.
        boundReply(sent.reply())
                .whenCompleteAsync(
                        (renewed, failure) -> {
                            if (failure != null && Failures.unwritten(failure) && System.nanoTime() - retryUntil < 0) {
                                sent.batch().forEach(hold -> {
                                    RenewalState renewal = renewals.get(hold);
                                    if (renewal != null) {
                                        renewal.end();
                                    }
                                });
                                resendAfter(change, script, sent.batch(), retryUntil);
                                return;
                            }
                            settle(sent.batch(), renewed, failure);
                        },
                        replies);
    }

    private void resendAfter(CompletableFuture<Void> change, LuaScript script, List<Hold> batch, long retryUntil) {
        ScheduledExecutorService scheduler = timer;
        if (scheduler == null) {
            return;
        }
        CompletableFuture<Void> recheck = new CompletableFuture<>();
        try {
            ScheduledFuture<?> tick = scheduler.schedule(() -> recheck.complete(null), 100, TimeUnit.MILLISECONDS);
            recheck.whenComplete((ignored, error) -> tick.cancel(false));
        } catch (java.util.concurrent.RejectedExecutionException ex) {
            // The client is closing: its holds are forgotten anyway.
            return;
        }
        CompletableFuture.anyOf(change, recheck)
                .whenCompleteAsync(
                        (ignored, error) -> {
                            recheck.complete(null);
                            send(script, batch, retryUntil);
                        },
                        replies);
    }

    /**
     * The timeout keys of the read holds in a batch, declared so that the script decides on no key
     * a slot migration may have moved away: holds 1 to the count this client knows of per owner. A
     * hold Redis counts beyond those is not renewed (this client does not know of it), and cannot
     * alone make the renewal report the owner's lease lost.
     */
    private static List<String> readHoldTimeouts(LuaScript script, List<Hold> batch) {
        if (!script.equals(Scripts.RW_READ_RENEW)) {
            return List.of();
        }
        List<String> keys = new ArrayList<>();
        for (Hold hold : batch) {
            keys.addAll(RedissonLayout.readHoldTimeouts(hold.key(), hold.ownerField(), hold.count()));
        }
        return keys;
    }

    private <T> CompletableFuture<T> boundReply(CompletableFuture<T> reply) {
        ScheduledExecutorService scheduler = timer;
        if (scheduler == null) {
            return reply;
        }
        try {
            ScheduledFuture<?> bound = scheduler.schedule(
                    () -> reply.completeExceptionally(new TimeoutException(
                            "no renewal reply within " + (commandTimeout.toMillis() + 1000) + " ms")),
                    commandTimeout.toMillis() + 1000,
                    TimeUnit.MILLISECONDS);
            reply.whenComplete((value, failure) -> bound.cancel(false));
        } catch (java.util.concurrent.RejectedExecutionException ex) {
            // The client is closing: nothing waits for this reply any more.
        }
        return reply;
    }

    private void settle(List<Hold> batch, @Nullable List<Long> renewed, @Nullable Throwable failure) {
        long now = System.nanoTime();
        for (int i = 0; i < batch.size(); i++) {
            Hold hold = batch.get(i);
            RenewalState renewal = renewals.get(hold);
            if (renewal == null) {
                // Released or forgotten meanwhile: nothing to report.
                continue;
            }
            Long outcome = failure == null && renewed != null && i < renewed.size() ? renewed.get(i) : null;
            if (outcome != null && outcome == 1) {
                if (renewal.renewed(now)) {
                    log.info(
                            "Lease renewal of lock '{}' (owner {}) succeeds again", hold.lockName(), hold.ownerField());
                }
            } else if (outcome != null && outcome == 0) {
                renewal.end();
                if (!hold.releasing() && holds.remove(hold)) {
                    renewals.remove(hold);
                    log.warn(
                            "Lost lock '{}': lease renewal found it no longer held by owner {} (expired, deleted or"
                                    + " taken over)",
                            hold.lockName(),
                            hold.ownerField());
                    onLost.accept(hold);
                }
            } else {
                renewal.reportFailure(
                        hold,
                        now,
                        leaseMillis,
                        failure != null
                                ? failure
                                : new IllegalStateException(
                                        "Redis could not read the lock key (wrong type or not servable)"));
            }
        }
    }

    private record BatchKey(LuaScript script, int group) {}

    private record Sent(List<Hold> batch, CompletableFuture<List<Long>> reply) {}
}
