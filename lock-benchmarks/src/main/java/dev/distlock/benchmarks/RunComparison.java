package dev.distlock.benchmarks;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the whole comparison against one {@code redis-server} it starts through the test fixture,
 * and writes a Markdown report. Every JMH benchmark runs in its own fork, all forks use that server.
 *
 * <p>System properties: {@code distlock.bench.results} (report path, default {@code results.md}),
 * {@code distlock.bench.only} (comma-separated scenario ids: A B C16 C64 D1 D8 F R CA64 W S1 S16, E for
 * the command counts, I for the interleaved cross-check of A and C64, IA for that of CA64; a letter
 * alone runs its numbered scenarios, {@code S} both S1 and S16; default all),
 * {@code distlock.bench.warmup} / {@code distlock.bench.measure} ({@code iterations x seconds},
 * defaults {@code 2x2} and {@code 3x3}; W's single-shot rounds use the iteration counts only),
 * {@code distlock.bench.baseline} (an earlier report to compare the rerun rows with, default the
 * report file as it is before the run).
 */
public final class RunComparison {

    private static final String UNCONTENDED = UncontendedBenchmark.class.getName();
    private static final String CONTENDED = ContendedBenchmark.class.getName();
    private static final String WAITERS = AsyncWaitersBenchmark.class.getName();
    private static final String IN_FLIGHT = AsyncInFlightBenchmark.class.getName();
    private static final String SEMAPHORE = SemaphoreBenchmark.class.getName();

    /** One table section: a benchmark method run with some libraries at a thread count. */
    record Scenario(
            String id, String title, String benchmark, String method, int threads, int clients, List<String> libs) {}

    static final List<Scenario> SCENARIOS = List.of(
            new Scenario(
                    "A",
                    "A: uncontended lock+unlock, fresh keys, 1 thread, lease given",
                    UNCONTENDED,
                    "lockUnlock",
                    1,
                    1,
                    List.of("raw", "distlock", "redisson", "spring-spin", "spring-pubsub")),
            new Scenario(
                    "B",
                    "B: as A with the watchdog (no lease)",
                    UNCONTENDED,
                    "lockUnlock",
                    1,
                    1,
                    List.of("distlock-watchdog", "redisson-watchdog")),
            new Scenario(
                    "C16",
                    "C: 16 threads, distinct fresh keys, one client",
                    UNCONTENDED,
                    "lockUnlock",
                    16,
                    1,
                    List.of("raw", "distlock", "redisson", "spring-spin")),
            new Scenario(
                    "C64",
                    "C: 64 threads, distinct fresh keys, one client",
                    UNCONTENDED,
                    "lockUnlock",
                    64,
                    1,
                    List.of("raw", "distlock", "redisson", "spring-spin")),
            new Scenario(
                    "D1",
                    "D: 8 threads, one key, one client",
                    CONTENDED,
                    "handOff",
                    8,
                    1,
                    List.of("distlock", "redisson", "spring-spin", "spring-pubsub")),
            new Scenario(
                    "D8",
                    "D: 8 threads, one key, 8 separate clients",
                    CONTENDED,
                    "handOff",
                    8,
                    8,
                    List.of("distlock", "redisson", "spring-spin", "spring-pubsub")),
            new Scenario(
                    "F",
                    "Fair lock: 8 threads, one key, 8 separate clients",
                    CONTENDED,
                    "handOff",
                    8,
                    8,
                    List.of("distlock-fair", "redisson-fair")),
            new Scenario(
                    "R",
                    "Read lock: 8 readers, one key, one client",
                    UNCONTENDED,
                    "readers",
                    8,
                    1,
                    List.of("distlock-read", "redisson-read")),
            new Scenario(
                    "CA64",
                    "C-async: 1 caller thread, 64 async lock+unlock in flight, distinct fresh keys, one client",
                    IN_FLIGHT,
                    "lockUnlockInFlight",
                    1,
                    1,
                    List.of("distlock-async", "redisson-async")),
            new Scenario(
                    "W",
                    "W: 10,000 async waiters on 100 locks, handed off in turn",
                    WAITERS,
                    "handOffRound",
                    1,
                    1,
                    List.of("distlock-async", "redisson-async", "distlock")),
            new Scenario(
                    "S1",
                    "S: semaphore of " + SemaphoreBenchmark.PERMITS + " permits, 1 thread (uncontended), one client",
                    SEMAPHORE,
                    "acquireRelease",
                    1,
                    1,
                    List.of("distlock", "redisson")),
            new Scenario(
                    "S16",
                    "S: 16 threads contending for " + SemaphoreBenchmark.PERMITS + " permits, "
                            + SemaphoreBenchmark.SECTION_MICROS + " us section, one client",
                    SEMAPHORE,
                    "contended",
                    16,
                    1,
                    List.of("distlock", "redisson")));

    /** What one library did in one scenario; {@code note} says why there is no score. */
    record Row(Scenario scenario, String lib, double score, double error, Properties metrics, String note) {

        boolean measured() {
            return !Double.isNaN(score);
        }

        double perOp(String key) {
            long ops = Long.parseLong(metrics.getProperty("ops", "0"));
            return ops == 0 || !metrics.containsKey(key)
                    ? Double.NaN
                    : Long.parseLong(metrics.getProperty(key)) / (double) ops;
        }

        String metric(String key) {
            return metrics.getProperty(key, "");
        }
    }

    private RunComparison() {}

    public static void main(String[] args) throws Exception {
        Path report = Path.of(System.getProperty("distlock.bench.results", "results.md"));
        // Read before the run overwrites it: the report as it was is what this run is compared with.
        Baseline baseline = Baseline.read(Path.of(System.getProperty("distlock.bench.baseline", report.toString())));
        Path metricsDir = Path.of(System.getProperty(MeasurementWindow.OUT_PROPERTY, "target/bench-metrics"))
                .toAbsolutePath();
        Set<String> only = Arrays.stream(
                        System.getProperty("distlock.bench.only", "").split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toSet());
        int[] warmup = iterations(System.getProperty("distlock.bench.warmup", "2x2"));
        int[] measure = iterations(System.getProperty("distlock.bench.measure", "3x3"));
        Instant started = Instant.now();
        double loadAtStart = Report.loadAverage();

        RedisServer server = RedisServers.start();
        try {
            int port = server.port();
            String redisVersion = server.command("INFO", "server")
                    .lines()
                    .filter(l -> l.startsWith("redis_version:"))
                    .map(l -> l.substring(14).trim())
                    .findFirst()
                    .orElse("?");
            Map<String, String> unsupported = unsupportedKinds(server.uri());

            System.out.println("# E: commands and bytes per uncontended lock+unlock");
            CommandCounter counter = new CommandCounter(port);
            Map<String, CommandCounter.Cost> costs = new LinkedHashMap<>();
            Map<String, String> costNotes = new LinkedHashMap<>();
            if (only.isEmpty() || only.contains("E")) {
                for (String lib : List.of(
                        "raw",
                        "distlock",
                        "distlock-watchdog",
                        "redisson",
                        "redisson-watchdog",
                        "spring-spin",
                        "spring-pubsub")) {
                    try {
                        costs.put(lib, counter.uncontended(lib));
                        System.out.println(lib + ": " + costs.get(lib));
                    } catch (RuntimeException ex) {
                        costNotes.put(lib, ex.toString());
                    }
                }
            }
            Map<String, CommandCounter.Renewals> renewals = new LinkedHashMap<>();
            if (only.isEmpty() || only.contains("B")) {
                for (String lib : List.of("distlock-watchdog", "redisson-watchdog")) {
                    renewals.put(lib, counter.watchdog(lib, 50, Duration.ofSeconds(3)));
                    System.out.println(lib + ": " + renewals.get(lib));
                }
            }

            Map<String, Map<String, Interleaved.Sample>> interleaved = new LinkedHashMap<>();
            List<String> interleavedLibs =
                    List.of(System.getProperty("distlock.bench.interleaved.libs", "raw,distlock,redisson,spring-spin")
                            .split(","));
            for (String id : List.of("A", "C16", "C64")) {
                if (only.isEmpty() || only.contains("I")) {
                    int threads = id.equals("A") ? 1 : Integer.parseInt(id.substring(1));
                    interleaved.put(id, new Interleaved(port).uncontended(threads, interleavedLibs));
                    System.out.println("interleaved " + id + ": " + interleaved.get(id));
                }
            }

            Map<String, Double> inFlight = new LinkedHashMap<>();
            if (only.isEmpty() || only.contains("IA")) {
                inFlight = new InterleavedInFlight(port).run();
                System.out.println("interleaved 64 in flight: " + inFlight);
            }

            List<Row> rows = new ArrayList<>();
            for (Scenario scenario : SCENARIOS) {
                if (!selected(only, scenario.id())) {
                    continue;
                }
                List<String> runnable = new ArrayList<>();
                for (String lib : scenario.libs()) {
                    if (unsupported.containsKey(lib)) {
                        rows.add(
                                new Row(scenario, lib, Double.NaN, Double.NaN, new Properties(), unsupported.get(lib)));
                    } else {
                        runnable.add(lib);
                    }
                }
                if (!runnable.isEmpty()) {
                    rows.addAll(run(scenario, runnable, port, metricsDir, warmup, measure));
                }
            }
            String markdown = Report.markdown(
                    rows,
                    costs,
                    costNotes,
                    renewals,
                    interleaved,
                    inFlight,
                    new Report.Setup(
                            started,
                            Duration.between(started, Instant.now()),
                            redisVersion,
                            warmup,
                            measure,
                            loadAtStart,
                            Report.loadAverage()),
                    baseline);
            Files.writeString(report, markdown);
            System.out.println(markdown);
            System.out.println("Wrote " + report.toAbsolutePath() + " in "
                    + Duration.between(started, Instant.now()).truncatedTo(ChronoUnit.SECONDS));
        } finally {
            server.stop();
        }
    }

    /** Whether a scenario is to run: all are without a selection; "S" selects S1 and S16, as "C" does C16 and C64. */
    static boolean selected(Set<String> only, String id) {
        return only.isEmpty() || only.contains(id) || only.contains(id.replaceAll("\\d+$", ""));
    }

    /** Lock kinds the Distlock build at hand does not offer yet: reported as n/a, not run. */
    private static Map<String, String> unsupportedKinds(String uri) {
        Map<String, String> unsupported = new LinkedHashMap<>();
        try (LockClient client = LockClient.create(uri)) {
            try {
                client.getFairLock("bench:probe");
            } catch (UnsupportedOperationException ex) {
                unsupported.put("distlock-fair", "n/a: " + ex.getMessage());
            }
            try {
                client.getReadWriteLock("bench:probe");
            } catch (UnsupportedOperationException ex) {
                unsupported.put("distlock-read", "n/a: " + ex.getMessage());
            }
        }
        return unsupported;
    }

    private static List<Row> run(
            Scenario scenario, List<String> libs, int port, Path metricsDir, int[] warmup, int[] measure)
            throws RunnerException, IOException {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include("^" + Pattern.quote(scenario.benchmark() + "." + scenario.method()) + "$")
                .param("lib", libs.toArray(String[]::new))
                .threads(scenario.threads())
                .forks(1)
                .warmupIterations(warmup[0])
                .warmupTime(TimeValue.seconds(warmup[1]))
                .measurementIterations(measure[0])
                .measurementTime(TimeValue.seconds(measure[1]))
                .timeout(TimeValue.seconds(60))
                .shouldFailOnError(false)
                .jvmArgsAppend(
                        "-Xmx1g",
                        "-D" + BenchmarkServer.PORT_PROPERTY + "=" + port,
                        "-D" + MeasurementWindow.OUT_PROPERTY + "=" + metricsDir,
                        "-D" + MeasurementWindow.SCENARIO_PROPERTY + "=" + scenario.id());
        if (scenario.benchmark().equals(CONTENDED)) {
            options.param("clients", Integer.toString(scenario.clients()));
        }
        Collection<RunResult> results = new Runner(options.build()).run();
        List<Row> rows = new ArrayList<>();
        for (String lib : libs) {
            RunResult result = results.stream()
                    .filter(r -> lib.equals(r.getParams().getParam("lib")))
                    .findFirst()
                    .orElse(null);
            Properties metrics = new Properties();
            Path file = metricsDir.resolve(scenario.id() + "__" + lib + "__" + scenario.clients() + ".properties");
            if (Files.exists(file)) {
                try (Reader in = Files.newBufferedReader(file)) {
                    metrics.load(in);
                }
            }
            if (result == null) {
                rows.add(new Row(scenario, lib, Double.NaN, Double.NaN, metrics, "failed (see JMH log)"));
            } else {
                rows.add(new Row(
                        scenario,
                        lib,
                        result.getPrimaryResult().getScore(),
                        result.getPrimaryResult().getScoreError(),
                        metrics,
                        ""));
            }
        }
        return rows;
    }

    private static int[] iterations(String spec) {
        String[] parts = spec.toLowerCase(Locale.ROOT).split("x");
        return new int[] {Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim())};
    }
}
