package dev.distlock.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The throughput rows of an earlier {@code results.md}, so that a run can show how the scenarios it
 * reran moved since then. The runner passes the report file as it was before the run; the first
 * row of a scenario and library wins (the newest, as the report puts the latest run first).
 */
final class Baseline {

    /** Scenarios whose Distlock row must not fall below {@link #FLOOR} of the earlier run: the blocking path. */
    static final List<String> GUARDED = List.of("A", "C64", "D1", "D8");
    /** Lowest ratio to the earlier run still counted as noise on this machine. */
    static final double FLOOR = 0.8;

    private static final Pattern SCORE = Pattern.compile("([\\d,]+) \\+- ([\\d,]+)");
    private static final Pattern MEASURED = Pattern.compile("Measured (\\S+) on");

    /** One earlier row: when it was measured, ops/s, its 99.9% interval and the hand-off cell as printed. */
    record Entry(String measured, double score, double error, String handOff) {}

    private final Map<String, Entry> entries;

    private Baseline(Map<String, Entry> entries) {
        this.entries = entries;
    }

    /**
     * Reads an earlier report.
     * @param file the report, or {@code null} for none
     * @return its rows, or an empty baseline if there is no such file
     */
    static Baseline read(@Nullable Path file) {
        if (file == null || !Files.isRegularFile(file)) {
            return new Baseline(Map.of());
        }
        try {
            String measured = "";
            Map<String, Entry> entries = new LinkedHashMap<>();
            for (String line : Files.readAllLines(file)) {
                Matcher when = MEASURED.matcher(line);
                // A report may keep older sections below the latest run, each under its own date.
                if (when.find()) {
                    measured = when.group(1);
                }
                String[] cells = line.split("\\s*\\|\\s*", -1);
                // "| title | lib | ops +- ci | ..." splits into "", title, lib, score, ...
                // Scenario titles read "A: ...": the comparison tables, keyed by bare ids, are not rows to compare
                // with.
                if (cells.length >= 10
                        && cells[1].contains(":")
                        && SCORE.matcher(cells[3]).matches()) {
                    Matcher score = SCORE.matcher(cells[3]);
                    score.matches();
                    entries.putIfAbsent(
                            cells[1] + "|" + cells[2],
                            new Entry(measured, number(score.group(1)), number(score.group(2)), cells[9]));
                }
            }
            return new Baseline(entries);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static double number(String text) {
        return Double.parseDouble(text.replace(",", ""));
    }

    private @Nullable Entry before(RunComparison.Row row) {
        return entries.get(row.scenario().title() + "|" + row.lib());
    }

    /** Appends the table of rerun rows against the earlier run, if there is an earlier run. */
    void comparison(StringBuilder md, List<RunComparison.Row> rows) {
        List<RunComparison.Row> rerun =
                rows.stream().filter(r -> r.measured() && before(r) != null).toList();
        if (rerun.isEmpty()) {
            return;
        }
        md.append("\n### Against the previous results\n\n");
        md.append("The rows this run repeated, beside the previous `results.md`. Intervals are JMH's 99.9% intervals;"
                + " \"overlap\" says whether the two intervals share any value.\n\n");
        md.append(
                "| Scenario | Library | before: measured | before ops/s | now ops/s | now / before | intervals overlap | hand-off (S: acquire) p50 / p99 before (us) | now (us) |\n");
        md.append("|---|---|---|---:|---:|---:|---|---:|---:|\n");
        for (RunComparison.Row row : rerun) {
            Entry before = before(row);
            md.append("| ")
                    .append(row.scenario().id())
                    .append(" | ")
                    .append(row.lib())
                    .append(" | ")
                    .append(before.measured())
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%,.0f +- %,.0f", before.score(), before.error()))
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%,.0f +- %,.0f", row.score(), row.error()))
                    .append(" | ")
                    .append(Report.fixed(row.score() / before.score()))
                    .append(" | ")
                    .append(overlap(row, before) ? "yes" : "no")
                    .append(" | ")
                    .append(before.handOff())
                    .append(" | ")
                    .append(
                            row.metrics().containsKey("handoff.p99.us")
                                    ? String.format(
                                            Locale.ROOT,
                                            "%,d / %,d",
                                            Long.parseLong(row.metric("handoff.p50.us")),
                                            Long.parseLong(row.metric("handoff.p99.us")))
                                    : SemaphoreReport.latency(row))
                    .append(" |\n");
        }
    }

    /** Appends the no-regression target for the blocking path, if there is an earlier run. */
    void target(StringBuilder md, List<RunComparison.Row> rows) {
        StringBuilder measuredText = new StringBuilder();
        String measured = "";
        boolean met = true;
        for (String id : GUARDED) {
            RunComparison.Row row = Report.find(rows, id, "distlock").orElse(null);
            Entry before = row == null ? null : before(row);
            if (before == null) {
                continue;
            }
            double ratio = row.score() / before.score();
            measured = before.measured();
            met &= ratio >= FLOOR;
            measuredText
                    .append(measuredText.isEmpty() ? "" : "; ")
                    .append(id)
                    .append(" ")
                    .append(Report.fixed(ratio))
                    .append("x")
                    .append(overlap(row, before) ? "" : " (intervals apart)");
        }
        if (!measuredText.isEmpty()) {
            Report.target(
                    md,
                    "Blocking path (distlock): A, C64, D1, D8 >= " + FLOOR + "x the previous results (" + measured
                            + ")",
                    measuredText.toString(),
                    met);
        }
    }

    private static boolean overlap(RunComparison.Row row, Entry before) {
        return row.score() + row.error() >= before.score() - before.error()
                && before.score() + before.error() >= row.score() - row.error();
    }
}
