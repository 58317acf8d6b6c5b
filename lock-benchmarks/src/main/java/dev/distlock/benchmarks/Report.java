package dev.distlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** Renders the comparison as Markdown. */
final class Report {

    /** Run conditions printed above the tables; load averages are NaN where the OS gives none. */
    record Setup(
            Instant started,
            Duration took,
            String redisVersion,
            int[] warmup,
            int[] measure,
            double loadAtStart,
            double loadAtEnd) {}

    private Report() {}

    /** @return the machine's one-minute load average, or NaN where the OS gives none */
    static double loadAverage() {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return load < 0 ? Double.NaN : load;
    }

    static String markdown(
            List<RunComparison.Row> rows,
            Map<String, CommandCounter.Cost> costs,
            Map<String, String> costNotes,
            Map<String, CommandCounter.Renewals> renewals,
            Map<String, Map<String, Interleaved.Sample>> interleaved,
            Map<String, Double> inFlight,
            Setup setup,
            Baseline baseline) {
        StringBuilder md = new StringBuilder();
        md.append("Measured ")
                .append(setup.started().truncatedTo(ChronoUnit.SECONDS))
                .append(" on ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores, Java ")
                .append(System.getProperty("java.version"))
                .append(", Redis ")
                .append(setup.redisVersion())
                .append(
                        " on loopback without persistence, one server for all libraries. JMH 1.37, 1 fork per benchmark, warmup ")
                .append(setup.warmup()[0])
                .append(" x ")
                .append(setup.warmup()[1])
                .append(" s, measurement ")
                .append(setup.measure()[0])
                .append(" x ")
                .append(setup.measure()[1])
                .append(" s. Whole run: ")
                .append(setup.took()
                        .truncatedTo(ChronoUnit.SECONDS)
                        .toString()
                        .substring(2)
                        .toLowerCase(Locale.ROOT))
                .append(". Load average (1 min, whole machine, shared with other work): ")
                .append(fixed(setup.loadAtStart()))
                .append(" at the start, ")
                .append(fixed(setup.loadAtEnd()))
                .append(" at the end.\n\n");

        boolean lockRows =
                rows.stream().anyMatch(r -> !r.scenario().id().equals("W") && !SemaphoreReport.isSemaphore(r));
        if (lockRows) {
            lockThroughput(md, rows);
        }
        AsyncReport.waiters(md, rows);
        SemaphoreReport.table(md, rows);
        baseline.comparison(md, rows);

        if (!interleaved.isEmpty()) {
            md.append("\n### Cross-check: uncontended, libraries interleaved in one JVM\n\n");
            md.append("Fresh-key lock+unlock, " + Interleaved.describe()
                    + ": the ratios are less exposed to load that drifts between JMH forks. Per lock+unlock:"
                    + " the client JVM's CPU time, the request bytes Redis read (`total_net_input_bytes`) and the"
                    + " bytes allocated by all the client JVM's threads (`ThreadMXBean.getThreadAllocatedBytes`),"
                    + " each the median over the rounds.\n\n");
            md.append("| Threads | Library | ops/s | x raw floor | x Redisson | client CPU us/op | x floor |"
                    + " request bytes/op | allocated bytes/op | x floor |\n"
                    + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            interleaved.forEach((id, samples) -> {
                Interleaved.Sample raw = samples.get("raw");
                Interleaved.Sample redisson = samples.get("redisson");
                samples.forEach((lib, sample) -> md.append("| ")
                        .append(id.equals("A") ? "1 (A)" : id.substring(1) + " (" + id + ")")
                        .append(" | ")
                        .append(lib)
                        .append(" | ")
                        .append(String.format(Locale.ROOT, "%,.0f", sample.opsPerSecond()))
                        .append(" | ")
                        .append(fixed(sample.opsPerSecond() / (raw == null ? Double.NaN : raw.opsPerSecond())))
                        .append(" | ")
                        .append(fixed(
                                sample.opsPerSecond() / (redisson == null ? Double.NaN : redisson.opsPerSecond())))
                        .append(" | ")
                        .append(String.format(Locale.ROOT, "%.0f", sample.cpuMicrosPerOp()))
                        .append(" | ")
                        .append(fixed(sample.cpuMicrosPerOp() / (raw == null ? Double.NaN : raw.cpuMicrosPerOp())))
                        .append(" | ")
                        .append(String.format(Locale.ROOT, "%.0f", sample.requestBytesPerOp()))
                        .append(" | ")
                        .append(String.format(Locale.ROOT, "%,.0f", sample.allocatedBytesPerOp()))
                        .append(" | ")
                        .append(fixed(
                                sample.allocatedBytesPerOp() / (raw == null ? Double.NaN : raw.allocatedBytesPerOp())))
                        .append(" |\n"));
            });
        }

        AsyncReport.interleaved(md, inFlight);

        if (!costs.isEmpty() || !costNotes.isEmpty()) {
            costs(md, costs, costNotes);
        }
        if (!renewals.isEmpty()) {
            md.append("\n### B: watchdog renewals\n\n");
            md.append(
                    "50 locks held with a 3 s watchdog (renewal every 1 s), commands sent over 3.3 s (`MONITOR`).\n\n");
            md.append(
                    "| Library | locks held | renewal periods | commands sent | per period |\n|---|---:|---:|---:|---:|\n");
            renewals.forEach((lib, r) -> md.append("| ")
                    .append(lib)
                    .append(" | ")
                    .append(r.heldLocks())
                    .append(" | ")
                    .append(fixed(r.periods()))
                    .append(" | ")
                    .append(r.renewalCommands())
                    .append(" | ")
                    .append(fixed(r.renewalCommands() / r.periods()))
                    .append(" |\n"));
        }

        md.append("\n### Targets\n\n| Target | Measured | Met |\n|---|---|---|\n");
        find(rows, "A", "distlock")
                .ifPresent(d -> target(
                        md,
                        "A: Distlock >= 0.9x raw floor",
                        ratio(d, floor(rows, d)),
                        ratioOf(d, floor(rows, d)) >= 0.9));
        interleavedTarget(
                md, interleaved.get("A"), "A (interleaved cross-check): Distlock >= 0.95x raw floor", "raw", 0.95);
        interleavedTarget(md, interleaved.get("C16"), "C16 (interleaved): Distlock >= 0.9x raw floor", "raw", 0.9);
        for (String id : List.of("A", "C16")) {
            costTarget(
                    md,
                    interleaved.get(id),
                    id + " (interleaved): client CPU per lock+unlock <= 1.2x the floor's",
                    Interleaved.Sample::cpuMicrosPerOp,
                    1.2);
        }
        costTarget(
                md,
                interleaved.get("A"),
                "A (interleaved): request bytes per lock+unlock within 15% of the floor's",
                Interleaved.Sample::requestBytesPerOp,
                1.15);
        costTarget(
                md,
                interleaved.get("A"),
                "A (interleaved): bytes allocated per lock+unlock <= 1.5x the floor's",
                Interleaved.Sample::allocatedBytesPerOp,
                1.5);
        CommandCounter.Cost lease = costs.get("distlock");
        CommandCounter.Cost watchdog = costs.get("distlock-watchdog");
        if (lease != null && watchdog != null) {
            target(
                    md,
                    "B: watchdog adds no command per lock+unlock",
                    fixed(watchdog.networkCommands()) + " vs " + fixed(lease.networkCommands()) + " without",
                    watchdog.networkCommands() <= lease.networkCommands());
        }
        CommandCounter.Renewals renewal = renewals.get("distlock-watchdog");
        if (renewal != null) {
            double perPeriod = renewal.renewalCommands() / renewal.periods();
            target(
                    md,
                    "B: renewals batched (50 held locks)",
                    fixed(perPeriod) + " commands per period",
                    perPeriod <= 1.5);
        }
        find(rows, "C64", "distlock").ifPresent(d -> {
            target(
                    md,
                    "C (64 threads): Distlock >= 0.8x raw floor",
                    ratio(d, floor(rows, d)),
                    ratioOf(d, floor(rows, d)) >= 0.8);
            target(
                    md,
                    "C (64 threads): Distlock >= 2x Redisson",
                    ratio(d, redisson(rows, d)),
                    ratioOf(d, redisson(rows, d)) >= 2);
        });
        interleavedTarget(
                md, interleaved.get("C64"), "C (64 threads, interleaved): Distlock >= 0.95x raw floor", "raw", 0.95);
        interleavedTarget(
                md, interleaved.get("C64"), "C (64 threads, interleaved): Distlock >= 2x Redisson", "redisson", 2);
        if (lease != null) {
            target(
                    md,
                    "C: one multiplexed connection",
                    lease.connections() + " connection(s) after uncontended use",
                    lease.connections() == 1);
        }
        find(rows, "D8", "distlock").ifPresent(d -> redisson(rows, d).ifPresent(r -> {
            target(
                    md,
                    "D (8 clients): throughput >= 2x Redisson",
                    ratio(d, Optional.of(r)),
                    ratioOf(d, Optional.of(r)) >= 2);
            double dc = d.perOp("calls");
            double rc = r.perOp("calls");
            target(
                    md,
                    "D (8 clients): Redis calls per acquisition <= 0.5x Redisson",
                    fixed(dc) + " vs " + fixed(rc) + " (" + fixed(dc / rc) + "x)",
                    dc <= 0.5 * rc);
            if (d.metrics().containsKey("handoff.p99.us") && r.metrics().containsKey("handoff.p99.us")) {
                long dp = Long.parseLong(d.metric("handoff.p99.us"));
                long rp = Long.parseLong(r.metric("handoff.p99.us"));
                target(md, "D (8 clients): hand-off p99 <= Redisson's", dp + " us vs " + rp + " us", dp <= rp);
            }
        }));
        AsyncReport.targets(md, rows, inFlight, baseline);
        SemaphoreReport.targets(md, rows);
        if (lease != null) {
            target(
                    md,
                    "E: exactly 2 network commands per uncontended lock+unlock",
                    fixed(lease.networkCommands()),
                    Math.abs(lease.networkCommands() - 2) < 0.005);
        }
        return md.toString();
    }

    /** The lock scenarios' throughput table: every row but W's and S's, which have tables of their own. */
    private static void lockThroughput(StringBuilder md, List<RunComparison.Row> rows) {
        md.append("### Throughput\n\n");
        md.append(
                "Redis calls/op: `INFO commandstats` calls (including those run inside scripts) over the measurement"
                        + " iterations, divided by lock+unlock operations; scripts/op counts `EVAL`+`EVALSHA` only."
                        + " Hand-off: from the holder's unlock call to the next holder's return from lock."
                        + " Redis CPU: the server's user+system CPU time (`INFO cpu`) per operation."
                        + " Fairness: Jain's index over the threads' acquisition counts (1 = even, 1/n = one thread took all).\n\n");
        md.append(
                "| Scenario | Library | ops/s (+- 99.9% CI) | x raw floor | x Redisson | Redis calls/op | scripts/op | Redis CPU us/op | hand-off p50 / p99 (us) | fairness (min-max per thread) |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (RunComparison.Row row : rows) {
            if (row.scenario().id().equals("W") || SemaphoreReport.isSemaphore(row)) {
                continue;
            }
            md.append("| ")
                    .append(row.scenario().title())
                    .append(" | ")
                    .append(row.lib())
                    .append(" | ");
            if (!row.measured()) {
                md.append(row.note()).append(" | | | | | | | |\n");
                continue;
            }
            md.append(String.format(Locale.ROOT, "%,.0f +- %,.0f", row.score(), row.error()))
                    .append(" | ");
            md.append(ratio(row, floor(rows, row)))
                    .append(" | ")
                    .append(ratio(row, redisson(rows, row)))
                    .append(" | ");
            md.append(fixed(row.perOp("calls")))
                    .append(" | ")
                    .append(fixed(row.perOp("scripts")))
                    .append(" | ");
            md.append(fixed(row.perOp("redis.cpu.us"))).append(" | ");
            md.append(
                            row.metrics().containsKey("handoff.p50.us")
                                    ? String.format(
                                            Locale.ROOT,
                                            "%,d / %,d",
                                            Long.parseLong(row.metric("handoff.p50.us")),
                                            Long.parseLong(row.metric("handoff.p99.us")))
                                    : "")
                    .append(" | ");
            if (row.scenario().id().startsWith("D") || row.scenario().id().equals("F")) {
                md.append(row.metric("fairness.jain"))
                        .append(" (")
                        .append(row.metric("fairness.min"))
                        .append("-")
                        .append(row.metric("fairness.max"))
                        .append(")");
            }
            md.append(" |\n");
        }
    }

    private static void costs(StringBuilder md, Map<String, CommandCounter.Cost> costs, Map<String, String> costNotes) {
        md.append("\n### E: cost of one uncontended lock+unlock\n\n");
        md.append("Network commands: what the client sent, from `MONITOR` (script-internal commands excluded)."
                + " Redis calls: `INFO commandstats` delta (script-internal commands included). Bytes: `INFO stats`"
                + " `total_net_input_bytes`/`total_net_output_bytes` deltas over 1,000 operations.\n\n");
        md.append(
                "| Library | network commands | commands sent per 100 ops | Redis calls | bytes to Redis | bytes from Redis | Redis CPU us | connections |\n");
        md.append("|---|---:|---|---:|---:|---:|---:|---:|\n");
        costs.forEach((lib, cost) -> md.append("| ")
                .append(lib)
                .append(" | ")
                .append(fixed(cost.networkCommands()))
                .append(" | ")
                .append(cost.commands().toString().replaceAll("[{}]", ""))
                .append(" | ")
                .append(fixed(cost.redisCalls()))
                .append(" | ")
                .append(String.format(Locale.ROOT, "%.0f", cost.bytesIn()))
                .append(" | ")
                .append(String.format(Locale.ROOT, "%.0f", cost.bytesOut()))
                .append(" | ")
                .append(fixed(cost.cpuMicros()))
                .append(" | ")
                .append(cost.connections())
                .append(" |\n"));
        costNotes.forEach((lib, note) ->
                md.append("| ").append(lib).append(" | failed: ").append(note).append(" | | | | | | |\n"));
    }

    private static void costTarget(
            StringBuilder md,
            Map<String, Interleaved.Sample> samples,
            String target,
            java.util.function.ToDoubleFunction<Interleaved.Sample> cost,
            double bound) {
        if (samples != null && samples.containsKey("distlock") && samples.containsKey("raw")) {
            double distlock = cost.applyAsDouble(samples.get("distlock"));
            double raw = cost.applyAsDouble(samples.get("raw"));
            target(
                    md,
                    target,
                    String.format(Locale.ROOT, "%,.0f vs %,.0f (%sx)", distlock, raw, fixed(distlock / raw)),
                    distlock <= bound * raw);
        }
    }

    private static void interleavedTarget(
            StringBuilder md, Map<String, Interleaved.Sample> rates, String target, String base, double bound) {
        if (rates != null && rates.containsKey("distlock") && rates.containsKey(base)) {
            double ratio =
                    rates.get("distlock").opsPerSecond() / rates.get(base).opsPerSecond();
            target(md, target, fixed(ratio), ratio >= bound);
        }
    }

    static void target(StringBuilder md, String target, String measured, boolean met) {
        md.append("| ")
                .append(target)
                .append(" | ")
                .append(measured)
                .append(" | ")
                .append(met ? "yes" : "**no**")
                .append(" |\n");
    }

    static Optional<RunComparison.Row> find(List<RunComparison.Row> rows, String scenario, String lib) {
        return rows.stream()
                .filter(r -> r.scenario().id().equals(scenario) && r.lib().equals(lib) && r.measured())
                .findFirst();
    }

    /** The raw floor a row is compared with: same scenario, or A for the watchdog scenario. */
    private static Optional<RunComparison.Row> floor(List<RunComparison.Row> rows, RunComparison.Row row) {
        String scenario = row.scenario().id().equals("B") ? "A" : row.scenario().id();
        return find(rows, scenario, "raw");
    }

    /** Redisson in the same scenario, in the same lock kind. */
    static Optional<RunComparison.Row> redisson(List<RunComparison.Row> rows, RunComparison.Row row) {
        return rows.stream()
                .filter(r -> r.scenario() == row.scenario() && r.lib().startsWith("redisson") && r.measured())
                .findFirst();
    }

    static double ratioOf(RunComparison.Row row, Optional<RunComparison.Row> base) {
        return base.map(b -> row.score() / b.score()).orElse(Double.NaN);
    }

    static String ratio(RunComparison.Row row, Optional<RunComparison.Row> base) {
        double ratio = ratioOf(row, base);
        return Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "%.2f", ratio);
    }

    static String fixed(double value) {
        return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.2f", value);
    }
}
