package dev.distlock.benchmarks;

import java.util.List;
import java.util.Locale;

/** Renders scenario S's own table: semaphore permits, Distlock beside Redisson. */
final class SemaphoreReport {

    private SemaphoreReport() {}

    /** @return whether a row belongs to scenario S (rendered here, not in the lock throughput table) */
    static boolean isSemaphore(RunComparison.Row row) {
        return row.scenario().id().startsWith("S");
    }

    /** Appends scenario S's table, if S ran. */
    static void table(StringBuilder md, List<RunComparison.Row> rows) {
        List<RunComparison.Row> semaphore =
                rows.stream().filter(SemaphoreReport::isSemaphore).toList();
        if (semaphore.isEmpty()) {
            return;
        }
        md.append("\n### S: semaphore permits\n\n");
        md.append("One semaphore of ")
                .append(SemaphoreBenchmark.PERMITS)
                .append(
                        " permits (Redisson's `RPermitExpirableSemaphore` layout, which both libraries use), taken with a ")
                .append(LockLibrary.LEASE_MILLIS / 1000)
                .append(" s lease, a section (S1: tiny; S16: a ")
                .append(SemaphoreBenchmark.SECTION_MICROS)
                .append(" us pause, so that the permits run out), then given back by the permit's id;"
                        + " one client for all threads."
                        + " ops/s: acquire+release pairs. Acquire: from the acquire call to its return with a permit."
                        + " Most held at once: the permits this process held at the same time, at most ")
                .append(SemaphoreBenchmark.PERMITS)
                .append(". Redis calls/op and scripts/op as in the throughput table;"
                        + " fairness: Jain's index over the threads' permit counts.\n\n");
        md.append(
                "| Scenario | Library | ops/s (+- 99.9% CI) | x Redisson | Redis calls/op | scripts/op | Redis CPU us/op"
                        + " | most held at once | acquire p50 / p99 (us) | fairness (min-max per thread) | timeouts |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
        for (RunComparison.Row row : semaphore) {
            md.append("| ")
                    .append(row.scenario().title())
                    .append(" | ")
                    .append(row.lib())
                    .append(" | ");
            if (!row.measured()) {
                md.append(row.note()).append(" | | | | | | | | |\n");
                continue;
            }
            md.append(String.format(Locale.ROOT, "%,.0f +- %,.0f", row.score(), row.error()))
                    .append(" | ")
                    .append(Report.ratio(row, Report.redisson(rows, row)))
                    .append(" | ")
                    .append(Report.fixed(row.perOp("calls")))
                    .append(" | ")
                    .append(Report.fixed(row.perOp("scripts")))
                    .append(" | ")
                    .append(Report.fixed(row.perOp("redis.cpu.us")))
                    .append(" | ")
                    .append(row.metric("holders.max"))
                    .append(" | ")
                    .append(latency(row))
                    .append(" | ");
            if (row.scenario().threads() > 1) {
                md.append(row.metric("fairness.jain"))
                        .append(" (")
                        .append(row.metric("fairness.min"))
                        .append("-")
                        .append(row.metric("fairness.max"))
                        .append(")");
            }
            md.append(" | ").append(row.metric("timeouts")).append(" |\n");
        }
    }

    /** @return the acquire latency cell, {@code p50 / p99} in microseconds, or empty */
    static String latency(RunComparison.Row row) {
        return row.metrics().containsKey("acquire.p99.us")
                ? String.format(
                        Locale.ROOT,
                        "%,d / %,d",
                        Long.parseLong(row.metric("acquire.p50.us")),
                        Long.parseLong(row.metric("acquire.p99.us")))
                : "";
    }

    /** Appends the targets of scenario S that ran: permits never over-granted, no timeouts. */
    static void targets(StringBuilder md, List<RunComparison.Row> rows) {
        Report.find(rows, "S16", "distlock").ifPresent(d -> {
            String most = d.metric("holders.max");
            Report.target(
                    md,
                    "S16: never more than " + SemaphoreBenchmark.PERMITS + " permits held at once",
                    most + " at most",
                    !most.isEmpty() && Integer.parseInt(most) <= SemaphoreBenchmark.PERMITS);
            Report.target(md, "S16: no acquire timed out", d.metric("timeouts"), "0".equals(d.metric("timeouts")));
        });
    }
}
