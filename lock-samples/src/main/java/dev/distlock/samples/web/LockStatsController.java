package dev.distlock.samples.web;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Summarises the {@code distlock.acquire} timers per lock for the page: acquisitions, timeouts,
 * errors and the p50/p95/p99 acquire latency published by
 * {@code management.metrics.distribution.percentiles.distlock.acquire}. One row's numbers are under
 * {@code /actuator/metrics/distlock.acquire} and {@code /actuator/metrics/distlock.acquire.percentile}
 * given that row's {@code lock.name}, {@code lock.type} and {@code outcome} tags (and {@code phi}): the
 * endpoint adds up every meter that matches, which makes no percentile of an unfiltered query.
 */
@RestController
class LockStatsController {

    private final MeterRegistry registry;

    LockStatsController(MeterRegistry registry) {
        this.registry = registry;
    }

    @GetMapping("/api/lock-stats")
    LockStats stats() {
        Map<String, LockRow> rows = new TreeMap<>();
        for (Timer timer : registry.find("distlock.acquire").timers()) {
            String name = tag(timer, "lock.name");
            String type = tag(timer, "lock.type");
            String outcome = tag(timer, "outcome");
            LockRow row = rows.computeIfAbsent(name + " (" + type + ")", key -> new LockRow(name, type));
            long count = timer.count();
            switch (outcome) {
                case "acquired" -> {
                    row.acquired += count;
                    for (ValueAtPercentile value : timer.takeSnapshot().percentileValues()) {
                        double millis = value.value(TimeUnit.MILLISECONDS);
                        if (value.percentile() == 0.5) {
                            row.p50 = millis;
                        } else if (value.percentile() == 0.95) {
                            row.p95 = millis;
                        } else if (value.percentile() == 0.99) {
                            row.p99 = millis;
                        }
                    }
                }
                case "timeout" -> row.timeouts += count;
                default -> row.errors += count;
            }
        }
        List<LockRow> locks = new ArrayList<>(rows.values());
        return new LockStats(
                locks.stream().mapToLong(r -> r.acquired).sum(),
                locks.stream().mapToLong(r -> r.timeouts).sum(),
                locks.stream().mapToLong(r -> r.errors).sum(),
                locks);
    }

    private static String tag(Timer timer, String key) {
        String value = timer.getId().getTag(key);
        return value != null ? value : "";
    }

    /**
     * Totals and one row per lock.
     * @param acquired acquisitions
     * @param timeouts acquisitions that timed out
     * @param errors acquisitions that failed
     * @param locks per lock
     */
    record LockStats(long acquired, long timeouts, long errors, List<LockRow> locks) {}

    /** One lock's acquisitions; latencies in milliseconds, {@code null} until measured. */
    static final class LockRow {

        public final String name;

        public final String type;

        public long acquired;

        public long timeouts;

        public long errors;

        public @Nullable Double p50;

        public @Nullable Double p95;

        public @Nullable Double p99;

        LockRow(String name, String type) {
            this.name = name;
            this.type = type;
        }
    }
}
