package dev.distlock.benchmarks;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** Renders the async scenarios' own table (W) and their targets. */
final class AsyncReport {

    static final int MAX_THREADS_ADDED = 20;
    static final double IN_FLIGHT_VS_BLOCKING = 0.9;
    static final double IN_FLIGHT_VS_REDISSON = 2;

    private AsyncReport() {}

    /** Appends scenario W's table, if W ran. */
    static void waiters(StringBuilder md, List<RunComparison.Row> rows) {
        List<RunComparison.Row> waiters =
                rows.stream().filter(r -> r.scenario().id().equals("W")).toList();
        if (waiters.isEmpty()) {
            return;
        }
        md.append("\n### W: ")
                .append(String.format(Locale.ROOT, "%,d", AsyncWaitersBenchmark.WAITERS))
                .append(" async waiters on ")
                .append(AsyncWaitersBenchmark.LOCKS)
                .append(" locks\n\n");
        md.append("One round: one thread starts all waiters' `tryLockAsync` at once (")
                .append(AsyncWaitersBenchmark.WAITERS_PER_LOCK)
                .append(" per lock); a waiter, once granted, releases with `unlockAsync`, which lets the next one in."
                        + " The blocking row does the same grants with ")
                .append(AsyncWaitersBenchmark.BLOCKING_THREADS_PER_LOCK)
                .append(" threads per lock (")
                .append(AsyncWaitersBenchmark.LOCKS * AsyncWaitersBenchmark.BLOCKING_THREADS_PER_LOCK)
                .append(" threads, each taking its lock ")
                .append(AsyncWaitersBenchmark.BLOCKING_GRANTS_PER_THREAD)
                .append(" times). Rounds are JMH single shots; the figures are over the measured rounds except"
                        + " \"first round\", the trial's first (warmup) round on a fresh client. Threads added: peak live"
                        + " threads during the round minus live threads before it (`ThreadMXBean`). Hand-off: from the"
                        + " holder's unlock call to the next holder's grant (the async stage's callback, or the blocking"
                        + " call's return). A lock's first hand-off is the one most exposed to the round's start, when"
                        + " the waiters' first attempts are still queued on the client's connection. Redis calls per"
                        + " grant: `INFO commandstats` calls, those scripts ran included; scripts per grant: `EVAL` and"
                        + " `EVALSHA` only (a grant's release counts too).\n\n");
        md.append(
                "| Library | granted / waiters (measured rounds) | unfinished rounds | timeouts / errors | threads added: first round / measured rounds (max) | hand-off p50 / p99 (us) | first hand-off per lock, median (us, worst round) | time per round, ms (+- 99.9% CI) | slowest round, ms | Redis calls per grant | scripts per grant |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (RunComparison.Row row : waiters) {
            md.append("| ").append(label(row.lib())).append(" | ");
            if (!row.measured() && !row.metrics().containsKey("granted")) {
                md.append(row.note()).append(" | | | | | | | | | |\n");
                continue;
            }
            md.append(count(row, "granted"))
                    .append(" / ")
                    .append(count(row, "waiters"))
                    .append(" | ")
                    .append(count(row, "unfinished.rounds"))
                    .append(" | ")
                    .append(count(row, "timeouts"))
                    .append(" / ")
                    .append(count(row, "errors"))
                    .append(" | ")
                    .append(count(row, "threads.added.first"))
                    .append(" / ")
                    .append(count(row, "threads.added"))
                    .append(" | ")
                    .append(handOff(row))
                    .append(" | ")
                    .append(count(row, "handoff.first.median.us"))
                    .append(" | ")
                    .append(
                            row.measured()
                                    ? String.format(Locale.ROOT, "%,.0f +- %,.0f", row.score(), row.error())
                                    : row.note())
                    .append(" | ")
                    .append(count(row, "round.ms.max"))
                    .append(" | ")
                    .append(Report.fixed(row.perOp("calls")))
                    .append(" | ")
                    .append(Report.fixed(row.perOp("scripts")))
                    .append(" |\n");
        }
        Report.find(rows, "D1", "distlock")
                .ifPresent(d -> md.append("| for reference: D1 distlock (8 threads, one key) | | | | | ")
                        .append(handOff(d))
                        .append(" | | | | ")
                        .append(Report.fixed(d.perOp("calls")))
                        .append(" | ")
                        .append(Report.fixed(d.perOp("scripts")))
                        .append(" |\n"));
    }

    /** Appends the interleaved cross-check of CA64, if it ran. */
    static void interleaved(StringBuilder md, Map<String, Double> inFlight) {
        if (inFlight.isEmpty()) {
            return;
        }
        md.append("\n### Cross-check: 64 in flight, libraries interleaved in one JVM\n\n");
        md.append("Fresh-key lock+unlock, 64 at a time: `distlock` with 64 blocking threads, the async libraries with"
                + " one caller thread and 64 chains (as CA64). Libraries take turns in 0.8 s rounds (rotating order),"
                + " median of 5 rounds after 2 warmup rounds.\n\n");
        md.append("| Library | ops/s | x distlock (64 threads) | x redisson-async |\n|---|---|---:|---:|\n");
        inFlight.forEach((lib, rate) -> md.append("| ")
                .append(
                        lib.equals(InterleavedInFlight.BLOCKING)
                                ? "distlock (64 blocking threads)"
                                : lib + " (1 thread, 64 in flight)")
                .append(" | ")
                .append(String.format(Locale.ROOT, "%,.0f", rate))
                .append(" | ")
                .append(Report.fixed(rate / inFlight.getOrDefault(InterleavedInFlight.BLOCKING, Double.NaN)))
                .append(" | ")
                .append(Report.fixed(rate / inFlight.getOrDefault("redisson-async", Double.NaN)))
                .append(" |\n"));
    }

    /** Appends the targets of the async scenarios that ran. */
    static void targets(
            StringBuilder md, List<RunComparison.Row> rows, Map<String, Double> inFlight, Baseline baseline) {
        waitersRow(rows, "distlock-async").ifPresent(w -> {
            long granted = number(w, "granted");
            long waiters = number(w, "waiters");
            Report.target(
                    md,
                    "W: every async waiter granted and released, every round (distlock-async)",
                    String.format(
                            Locale.ROOT,
                            "%,d / %,d; %d unfinished round(s)",
                            granted,
                            waiters,
                            number(w, "unfinished.rounds")),
                    waiters > 0 && granted == waiters && number(w, "unfinished.rounds") == 0);
            long added = Math.max(number(w, "threads.added.first"), number(w, "threads.added"));
            Report.target(
                    md,
                    "W: fewer than " + MAX_THREADS_ADDED + " threads added (distlock-async, worst round incl. first)",
                    "first round " + count(w, "threads.added.first") + ", measured rounds max "
                            + count(w, "threads.added"),
                    added < MAX_THREADS_ADDED);
            waitersRow(rows, "distlock")
                    .filter(b -> b.metrics().containsKey("handoff.p99.us")
                            && w.metrics().containsKey("handoff.p99.us"))
                    .ifPresent(b -> {
                        long asyncP99 = number(w, "handoff.p99.us");
                        long blockingP99 = number(b, "handoff.p99.us");
                        Report.target(
                                md,
                                "W: hand-off p99 <= blocking path (distlock, "
                                        + AsyncWaitersBenchmark.LOCKS * AsyncWaitersBenchmark.BLOCKING_THREADS_PER_LOCK
                                        + " threads on the same 100 locks, same run)",
                                asyncP99 + " us vs " + blockingP99 + " us",
                                asyncP99 <= blockingP99);
                    });
        });
        Report.find(rows, "CA64", "distlock-async").ifPresent(a -> {
            Report.find(rows, "C64", "distlock")
                    .ifPresent(c -> Report.target(
                            md,
                            "CA64: 1 thread, 64 in flight >= " + IN_FLIGHT_VS_BLOCKING
                                    + "x 64 blocking threads (C64 distlock)",
                            ratioText(a, c),
                            a.score() >= IN_FLIGHT_VS_BLOCKING * c.score()));
            Report.find(rows, "CA64", "redisson-async")
                    .ifPresent(r -> Report.target(
                            md,
                            "CA64: distlock-async >= " + (int) IN_FLIGHT_VS_REDISSON + "x redisson-async",
                            ratioText(a, r),
                            a.score() >= IN_FLIGHT_VS_REDISSON * r.score()));
        });
        Double async = inFlight.get("distlock-async");
        Double blocking = inFlight.get(InterleavedInFlight.BLOCKING);
        Double redisson = inFlight.get("redisson-async");
        if (async != null && blocking != null && redisson != null) {
            Report.target(
                    md,
                    "CA64 (interleaved): distlock-async >= " + IN_FLIGHT_VS_BLOCKING + "x 64 blocking threads",
                    String.format(Locale.ROOT, "%.2fx (%,.0f vs %,.0f ops/s)", async / blocking, async, blocking),
                    async >= IN_FLIGHT_VS_BLOCKING * blocking);
            Report.target(
                    md,
                    "CA64 (interleaved): distlock-async >= " + (int) IN_FLIGHT_VS_REDISSON + "x redisson-async",
                    String.format(Locale.ROOT, "%.2fx (%,.0f vs %,.0f ops/s)", async / redisson, async, redisson),
                    async >= IN_FLIGHT_VS_REDISSON * redisson);
        }
        baseline.target(md, rows);
    }

    private static Optional<RunComparison.Row> waitersRow(List<RunComparison.Row> rows, String lib) {
        return rows.stream()
                .filter(r -> r.scenario().id().equals("W") && r.lib().equals(lib))
                .findFirst();
    }

    private static String label(String lib) {
        return lib.equals("distlock")
                ? "distlock (blocking, " + AsyncWaitersBenchmark.LOCKS * AsyncWaitersBenchmark.BLOCKING_THREADS_PER_LOCK
                        + " threads)"
                : lib;
    }

    private static String ratioText(RunComparison.Row row, RunComparison.Row base) {
        return String.format(
                Locale.ROOT, "%.2fx (%,.0f vs %,.0f ops/s)", row.score() / base.score(), row.score(), base.score());
    }

    private static String handOff(RunComparison.Row row) {
        return row.metrics().containsKey("handoff.p99.us")
                ? String.format(Locale.ROOT, "%,d / %,d", number(row, "handoff.p50.us"), number(row, "handoff.p99.us"))
                : "";
    }

    private static long number(RunComparison.Row row, String key) {
        return Long.parseLong(row.metrics().getProperty(key, "0"));
    }

    private static String count(RunComparison.Row row, String key) {
        return String.format(Locale.ROOT, "%,d", number(row, key));
    }
}
