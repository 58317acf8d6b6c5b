package dev.distlock.core.internal.kind;

import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.script.SemaphoreRenew;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watchdog permits of one client's semaphores, renewed every third of the watchdog timeout on
 * the client's scheduler (the one its {@code LeaseWatchdog} runs on): one script call per semaphore
 * and round, up to {@value #BATCH} permits each, over the client's command connection. The lock
 * watchdog's batches renew hash fields by owner; a permit is a sorted set member with an expiry as
 * its score, so its renewal is a script of its own, sent alongside. When the client closes, the
 * scheduler stops and the permits come back with their expiry, within one watchdog timeout.
 */
public final class WatchdogPermits {

    static final int BATCH = 256;

    private static final Logger log = LoggerFactory.getLogger(WatchdogPermits.class);

    private final LockEngine engine;
    /** Permit ids by the semaphore's timeout key. */
    private final Map<String, Set<String>> permits = new ConcurrentHashMap<>();
    /** Semaphore name by timeout key, for the log. */
    private final Map<String, String> names = new ConcurrentHashMap<>();

    private @Nullable ScheduledFuture<?> task;

    /**
     * Creates the registry; renewals start with the first permit.
     * @param engine the client's engine
     */
    public WatchdogPermits(LockEngine engine) {
        this.engine = engine;
    }

    /**
     * Starts renewing a permit.
     * @param name the semaphore's name
     * @param timeoutKey the semaphore's timeout key
     * @param permitId the permit's id
     */
    void add(String name, String timeoutKey, String permitId) {
        names.putIfAbsent(timeoutKey, name);
        // Added under the map's lock of the key, so that a round dropping an empty set never drops this id.
        permits.compute(timeoutKey, (key, ids) -> {
            Set<String> kept = ids != null ? ids : ConcurrentHashMap.newKeySet();
            kept.add(permitId);
            return kept;
        });
        start();
    }

    /**
     * Stops renewing a permit; called before its release is sent, so that no renewal follows it.
     * @param timeoutKey the semaphore's timeout key
     * @param permitId the permit's id
     */
    void remove(String timeoutKey, String permitId) {
        Set<String> ids = permits.get(timeoutKey);
        if (ids != null) {
            ids.remove(permitId);
        }
    }

    /** @return how many permits are renewed, for tests and diagnostics */
    public int size() {
        return permits.values().stream().mapToInt(Set::size).sum();
    }

    private synchronized void start() {
        if (task != null) {
            return;
        }
        long period = Math.max(1, engine.watchdogMillis() / 3);
        try {
            task = engine.scheduler().scheduleWithFixedDelay(this::renewAll, period, period, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException ex) {
            // The client is closing: its permits come back with their expiry.
        }
    }

    /** Sends one renewal round; the scheduler calls this, tests may too. */
    public void renewAll() {
        for (String timeoutKey : List.copyOf(permits.keySet())) {
            permits.computeIfPresent(timeoutKey, (key, ids) -> ids.isEmpty() ? null : ids);
        }
        permits.forEach((timeoutKey, ids) -> {
            List<String> all = new ArrayList<>(ids);
            for (int from = 0; from < all.size(); from += BATCH) {
                List<String> batch = all.subList(from, Math.min(all.size(), from + BATCH));
                renew(timeoutKey, ids, List.copyOf(batch));
            }
        });
    }

    private void renew(String timeoutKey, Set<String> ids, List<String> batch) {
        engine.calls()
                .call(() -> new SemaphoreRenew(timeoutKey, engine.watchdogMillis(), batch).run(engine.scripts()))
                .whenComplete((renewed, failure) -> {
                    if (failure != null || renewed == null) {
                        log.debug("Could not renew {} semaphore permits; retrying next round", batch.size(), failure);
                        return;
                    }
                    for (int i = 0; i < batch.size() && i < renewed.size(); i++) {
                        if (renewed.get(i) == 0 && ids.remove(batch.get(i))) {
                            log.warn(
                                    "Lost permit {} of semaphore '{}': renewal found it no longer taken (expired or"
                                            + " removed)",
                                    batch.get(i),
                                    names.get(timeoutKey));
                        }
                    }
                });
    }
}
