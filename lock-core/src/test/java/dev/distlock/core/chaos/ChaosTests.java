package dev.distlock.core.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.chaos.ChaosChecker.Violation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The randomized fault harness. The smoke run (part of {@code verify}) works 30 s against one
 * topology, rotating with the seed; the long run ({@code -Pchaos -Dchaos.minutes=N}) works N minutes
 * against each topology in turn, or only {@code -Dchaos.topology=...}. {@code -Dchaos.seed=N}
 * repeats a run's choices (operations, faults and their timing; thread scheduling stays free),
 * {@code -Dchaos.faults=KILL_STORM,...} narrows the faults, {@code -Dchaos.jvms=N} and
 * {@code -Dchaos.threads=N} set the client JVMs and their operation threads, {@code -Dchaos.hotThreads=N},
 * {@code -Dchaos.lineThreads=N} and {@code -Dchaos.semaphoreThreads=N} their hot callers, waiter-line
 * callers and semaphore callers. {@code -Dchaos.broken=true} (long run only) makes client JVM
 * {@code w0} skip its locks and enter semaphore sections without a permit, to see the checks fail.
 * Each run writes {@code target/chaos/<topology>-<seed>-<time>/report.txt} and its histories.
 */
@Tag("chaos")
class ChaosTests {

    private static final String[] TOPOLOGIES = {"standalone", "sentinel", "cluster"};

    @Test
    @DisabledIfSystemProperty(named = "chaos.minutes", matches = ".+")
    @DisabledIfSystemProperty(named = "chaos.recheck", matches = ".+")
    void shouldKeepEveryPromiseUnderRandomFaults() throws Exception {
        long seed = seed();
        String topology = System.getProperty("chaos.topology", TOPOLOGIES[(int) Math.floorMod(seed, 3L)]);
        Duration duration = Duration.ofSeconds(Long.getLong("chaos.smokeSeconds", 30));
        assertNoViolations(
                List.of(ChaosRun.run(new ChaosRun.Settings(topology, seed, duration, jvms(), threads(), true, false))));
    }

    @Test
    @EnabledIfSystemProperty(named = "chaos.minutes", matches = "\\d+(\\.\\d+)?")
    void shouldKeepEveryPromiseUnderRandomFaultsForMinutes() throws Exception {
        long seed = seed();
        Duration duration =
                Duration.ofSeconds(Math.round(Double.parseDouble(System.getProperty("chaos.minutes")) * 60));
        String only = System.getProperty("chaos.topology", "");
        List<ChaosRun.Report> reports = new ArrayList<>();
        for (String topology : only.isBlank() ? TOPOLOGIES : only.split(",")) {
            reports.add(ChaosRun.run(new ChaosRun.Settings(
                    topology.trim(), seed, duration, jvms(), threads(), true, Boolean.getBoolean("chaos.broken"))));
        }
        assertNoViolations(reports);
    }

    /** Checks a recorded run again ({@code -Dchaos.recheck=target/chaos/<run>}), e.g. after a checker change. */
    @Test
    @EnabledIfSystemProperty(named = "chaos.recheck", matches = ".+")
    void shouldFindNoViolationsInARecordedRun() throws Exception {
        java.nio.file.Path dir = java.nio.file.Path.of(System.getProperty("chaos.recheck"));
        List<Fault> faults = java.nio.file.Files.readAllLines(dir.resolve("faults.log")).stream()
                .filter(line -> !line.isBlank())
                .map(Fault::parse)
                .toList();
        ChaosChecker.Result result = ChaosChecker.check(
                ChaosRun.readHistories(dir),
                faults,
                ChaosRun.readLedger(dir),
                ChaosRun.readRegister(dir),
                ChaosRun.PARAMS);
        org.slf4j.LoggerFactory.getLogger(ChaosTests.class)
                .info(
                        "[chaos] recheck of {}: {} violations, {}",
                        dir,
                        result.violations().size(),
                        result.stats());
        assertThat(result.violations())
                .as(() -> String.join(
                        "\n",
                        result.violations().stream()
                                .limit(5)
                                .map(Violation::toString)
                                .toList()))
                .isEmpty();
    }

    /** Client JVMs ({@code -Dchaos.jvms}, default 3). */
    private static int jvms() {
        return Integer.getInteger("chaos.jvms", 3);
    }

    /** Operation threads per client JVM ({@code -Dchaos.threads}, default 4): several callers per client form waiter lines. */
    private static int threads() {
        return Integer.getInteger("chaos.threads", 4);
    }

    private static long seed() {
        Long given = Long.getLong("chaos.seed");
        return given != null ? given : ThreadLocalRandom.current().nextLong(1, 1_000_000_000L);
    }

    private static void assertNoViolations(List<ChaosRun.Report> reports) {
        for (ChaosRun.Report report : reports) {
            List<Violation> violations = report.violations();
            assertThat(violations)
                    .as(() -> report.summary() + "; first violations:\n  "
                            + String.join(
                                    "\n  ",
                                    violations.stream()
                                            .limit(5)
                                            .map(Violation::toString)
                                            .toList()))
                    .isEmpty();
        }
    }
}
