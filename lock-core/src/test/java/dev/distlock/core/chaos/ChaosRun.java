package dev.distlock.core.chaos;

import dev.distlock.core.chaos.ChaosChecker.Params;
import dev.distlock.core.chaos.ChaosChecker.Violation;
import dev.distlock.core.test.RedisServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One chaos run against one topology: starts the deployment and the client JVMs, lets them work
 * while the {@link Nemesis} injects faults, then heals everything and checks (1) the history with
 * {@link ChaosChecker}, (2) that every lock can be taken once all faults healed ({@link FinalChecks}),
 * (3) that no thread, subscription or key is left behind. Every process it starts is stopped in a
 * {@code finally} block, and by a shutdown hook should the test JVM be killed first.
 */
final class ChaosRun {

    static final String KEY_PREFIX = "chaos:";
    static final String CLIENT_NAME_PREFIX = "chaos-";

    private static final Logger log = LoggerFactory.getLogger(ChaosRun.class);

    /**
     * @param topology {@code standalone}, {@code sentinel} or {@code cluster}
     * @param seed seed of every random choice (operations, faults, their timing)
     * @param duration how long clients work and the nemesis injects faults
     * @param jvms client JVMs
     * @param threads operation threads per client JVM
     * @param faults whether the nemesis runs
     * @param broken whether client JVM {@code w0} skips its locks and enters semaphore sections without
     *     a permit (only to test the checker)
     */
    record Settings(
            String topology, long seed, Duration duration, int jvms, int threads, boolean faults, boolean broken) {}

    /** The outcome of a run. */
    record Report(
            Settings settings,
            Path dir,
            Map<String, Long> stats,
            Map<String, Long> faults,
            long stormKills,
            List<Violation> violations) {

        String summary() {
            return "chaos " + settings.topology() + " seed=" + settings.seed() + " (-Dchaos.seed=" + settings.seed()
                    + " -Dchaos.topology=" + settings.topology() + "): "
                    + stats.entrySet().stream()
                            .filter(e -> e.getKey().startsWith("ops "))
                            .mapToLong(Map.Entry::getValue)
                            .sum()
                    + " operations, "
                    + faults.values().stream().mapToLong(Long::longValue).sum() + " faults ("
                    + stormKills + " connections killed by storms), "
                    + violations.size() + " violations; report " + dir.resolve("report.txt");
        }
    }

    static final Params PARAMS = new Params(3000, 2000, 2000, 4000, 25, 5000);

    private ChaosRun() {}

    static Report run(Settings settings) throws Exception {
        Path dir = Path.of(
                        "target",
                        "chaos",
                        settings.topology() + "-" + settings.seed() + "-" + System.currentTimeMillis())
                .toAbsolutePath();
        Files.createDirectories(dir);
        log.info("[chaos] starting {} (Redis {}), run directory {}", settings, RedisServers.majorVersion(), dir);
        List<WorkerProcess> workers = new ArrayList<>();
        AtomicReference<ChaosTopology> topologyRef = new AtomicReference<>();
        Thread cleanup = new Thread(() -> stopAll(workers, topologyRef.get()), "chaos-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        AutoCloseable failoverWatch = () -> {};
        try {
            ChaosTopology topology = ChaosTopology.start(settings.topology());
            topologyRef.set(topology);
            for (int i = 0; i < settings.jvms(); i++) {
                String jvm = "w" + i;
                synchronized (workers) {
                    workers.add(WorkerProcess.start(jvm, writeProperties(dir, jvm, settings, topology, i == 0), dir));
                }
            }
            for (WorkerProcess worker : workers) {
                worker.expect("READY", 90);
            }
            Nemesis nemesis = new Nemesis(topology, workers, settings.seed());
            failoverWatch = nemesis.watchFailovers();
            long deadline = System.currentTimeMillis() + settings.duration().toMillis();
            workers.forEach(worker -> worker.send("GO"));
            try {
                if (settings.faults()) {
                    nemesis.run(deadline);
                } else {
                    Thread.sleep(settings.duration().toMillis());
                }
            } finally {
                nemesis.healAll();
            }
            topology.awaitHealthy();
            List<Violation> violations = new ArrayList<>();
            FinalChecks finalChecks = new FinalChecks(topology, PARAMS);
            finalChecks.awaitIdle(workers, violations);
            finalChecks.subscriptions(violations);
            finalChecks.probeLocks(violations);
            finalChecks.closeClients(workers);
            finalChecks.leftoverKeys(violations);
            failoverWatch.close();
            List<Fault> faults = nemesis.faults();
            write(dir.resolve("faults.log"), faults.stream().map(Fault::toLine).toList());
            ChaosChecker.Result result =
                    ChaosChecker.check(readHistories(dir), faults, readLedger(dir), readRegister(dir), PARAMS);
            List<Violation> all = new ArrayList<>(result.violations());
            all.addAll(violations);
            Map<String, Long> faultCounts = new TreeMap<>();
            faults.forEach(f -> faultCounts.merge(f.type(), 1L, Long::sum));
            Report report = new Report(settings, dir, result.stats(), faultCounts, nemesis.stormKills(), all);
            writeReport(report, faults);
            log.info("[chaos] {}", report.summary());
            return report;
        } finally {
            failoverWatch.close();
            stopAll(workers, topologyRef.get());
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
        }
    }

    private static void stopAll(List<WorkerProcess> workers, ChaosTopology topology) {
        synchronized (workers) {
            workers.forEach(WorkerProcess::close);
        }
        if (topology != null) {
            topology.close();
        }
    }

    private static Path writeProperties(Path dir, String jvm, Settings settings, ChaosTopology topology, boolean first)
            throws IOException {
        Properties p = new Properties();
        topology.describe(p);
        p.setProperty("jvm", jvm);
        p.setProperty("dir", dir.toString());
        p.setProperty("seed", Long.toString(settings.seed()));
        p.setProperty("millis", Long.toString(settings.duration().toMillis()));
        p.setProperty("threads", Integer.toString(settings.threads()));
        // Hot callers per client JVM (-Dchaos.hotThreads, default 2): the dense traffic of quick retries.
        p.setProperty("hotThreads", System.getProperty("chaos.hotThreads", "2"));
        // Callers in waiter lines per client JVM (-Dchaos.lineThreads, default 3): long waits on few locks.
        p.setProperty("lineThreads", System.getProperty("chaos.lineThreads", "3"));
        // Semaphore callers per client JVM (-Dchaos.semaphoreThreads, default 2): more callers than permits.
        p.setProperty("semaphoreThreads", System.getProperty("chaos.semaphoreThreads", "2"));
        p.setProperty("broken", Boolean.toString(settings.broken() && first));
        p.setProperty("watchdogMillis", Long.toString(PARAMS.watchdogMillis()));
        p.setProperty("commandTimeoutMillis", Long.toString(PARAMS.commandTimeoutMillis()));
        p.setProperty("fairWaitMillis", Long.toString(PARAMS.fairWaitMillis()));
        Path file = dir.resolve(jvm + ".properties");
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(out, "chaos client JVM " + jvm);
        }
        return file;
    }

    static List<Event> readHistories(Path dir) throws IOException {
        List<Event> events = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith("history-"))
                    .sorted()
                    .toList()) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    if (!line.isBlank()) {
                        try {
                            events.add(Event.parse(line));
                        } catch (RuntimeException torn) {
                            // the last line of a JVM killed while writing it
                        }
                    }
                }
            }
        }
        events.sort((a, b) -> Long.compare(a.time(), b.time()));
        return events;
    }

    static List<ExclusionRegister.Entry> readRegister(Path dir) throws IOException {
        return ExclusionRegister.read(dir, ChaosOperations.allNamesAndSemaphores());
    }

    static List<LedgerEntry> readLedger(Path dir) throws IOException {
        List<LedgerEntry> entries = new ArrayList<>();
        for (String lock : ChaosOperations.FENCED) {
            Path file = FencedLedger.logOf(dir, lock);
            if (Files.exists(file)) {
                Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                        .filter(l -> !l.isBlank())
                        .forEach(line -> entries.add(LedgerEntry.parse(lock, line)));
            }
        }
        return entries;
    }

    private static void writeReport(Report report, List<Fault> faults) {
        List<String> lines = new ArrayList<>();
        lines.add(report.summary());
        lines.add("settings: " + report.settings() + ", Redis " + RedisServers.majorVersion() + ", " + PARAMS);
        lines.add("");
        lines.add("counts:");
        report.stats().forEach((k, v) -> lines.add("  " + k + ": " + v));
        lines.add("faults by type:");
        report.faults().forEach((k, v) -> lines.add("  " + k + ": " + v));
        lines.add("violations: " + report.violations().size());
        report.violations().forEach(v -> lines.add("  " + v));
        lines.add("");
        lines.add("fault log:");
        faults.forEach(f -> lines.add("  " + f));
        write(report.dir().resolve("report.txt"), lines);
    }

    private static void write(Path file, List<String> lines) {
        try {
            Files.write(file, lines, StandardCharsets.UTF_8);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
