package dev.distlock.core.internal.watchdog;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.distlock.core.internal.lock.Hold;
import dev.distlock.core.internal.lock.LocalHolds;
import dev.distlock.core.internal.script.LuaScript;
import dev.distlock.core.internal.script.ScriptExecutor;

/**
 * Renews every watchdog hold of a client every third of the watchdog timeout, in as few Redis
 * calls as possible: one script call per renew script and cluster slot, up to {@value #BATCH}
 * holds each. Holds whose renewal finds them gone are reported lost and no longer renewed;
 * transient errors are retried at the next round.
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
    private @Nullable ScheduledFuture<?> task;

    /**
     * Creates a watchdog; call {@link #start(ScheduledExecutorService)} to run it.
     * @param holds the client's holds
     * @param executor runs the renew scripts
     * @param batchGroup maps a key to its batch (cluster slot)
     * @param onLost told of every hold found lost (after it was forgotten)
     * @param watchdogTimeout lease given at every renewal
     * @param commandTimeout bound on one renewal round trip
     */
    public LeaseWatchdog(LocalHolds holds, ScriptExecutor executor, ToIntFunction<String> batchGroup,
            Consumer<Hold> onLost, Duration watchdogTimeout, Duration commandTimeout) {
        this.holds = holds;
        this.executor = executor;
        this.batchGroup = batchGroup;
        this.onLost = onLost;
        this.leaseMillis = watchdogTimeout.toMillis();
        this.commandTimeout = commandTimeout;
    }

    /**
     * Starts renewing.
     * @param scheduler the client's scheduler
     */
    public synchronized void start(ScheduledExecutorService scheduler) {
        long period = Math.max(1, leaseMillis / 3);
        task = scheduler.scheduleWithFixedDelay(this::renewAll, period, period, TimeUnit.MILLISECONDS);
    }

    /** Stops renewing; holds then expire after at most one watchdog timeout. */
    public synchronized void stop() {
        if (task != null) {
            task.cancel(false);
        }
    }

    /** Runs one renewal round now; the scheduler calls this, tests may too. */
    public void renewAll() {
        Map<BatchKey, List<Hold>> batches = new LinkedHashMap<>();
        for (Hold hold : holds.snapshot()) {
            if (hold.watchdog() && !hold.releasing()) {
                batches.computeIfAbsent(new BatchKey(hold.renewScript(), batchGroup.applyAsInt(hold.key())),
                        k -> new ArrayList<>()).add(hold);
            }
        }
        batches.forEach((batchKey, batch) -> {
            for (int from = 0; from < batch.size(); from += BATCH) {
                renew(batchKey.script(), batch.subList(from, Math.min(batch.size(), from + BATCH)));
            }
        });
    }

    private void renew(LuaScript script, List<Hold> batch) {
        String[] keys = new String[batch.size()];
        String[] args = new String[batch.size() + 1];
        args[0] = Long.toString(leaseMillis);
        for (int i = 0; i < batch.size(); i++) {
            keys[i] = batch.get(i).key();
            args[i + 1] = batch.get(i).ownerField();
        }
        List<Long> renewed;
        try {
            renewed = executor.<List<Long>>run(script, keys, args)
                    .get(commandTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return;
        }
        catch (Exception ex) {
            log.debug("Lease renewal of {} holds failed; retrying next round", batch.size(), ex);
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            Hold hold = batch.get(i);
            if (renewed.get(i) == 0 && !hold.releasing() && holds.remove(hold)) {
                log.warn("Lost lock '{}': lease renewal found it no longer held by owner {} (expired, deleted or taken over)",
                        hold.lockName(), hold.ownerField());
                onLost.accept(hold);
            }
        }
    }

    private record BatchKey(LuaScript script, int group) {
    }
}
