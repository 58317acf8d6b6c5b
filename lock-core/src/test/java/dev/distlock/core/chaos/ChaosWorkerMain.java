package dev.distlock.core.chaos;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockListener;
import dev.distlock.core.chaos.Event.Kind;
import dev.distlock.core.chaos.Event.Phase;
import dev.distlock.core.chaos.Event.Type;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A client JVM of the chaos harness. Argument: its properties file (written by {@link ChaosRun}).
 * Protocol on standard streams: prints {@code CHAOS READY}, waits for {@code GO}, runs random
 * operations ({@link ChaosOperations}) on several threads until its deadline, prints
 * {@code CHAOS IDLE <leaked threads or ->}, waits for {@code CLOSE}, closes its client and prints
 * {@code CHAOS CLOSED}. It exits when its standard input closes (the harness died).
 */
public final class ChaosWorkerMain {

    private ChaosWorkerMain() {}

    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of(args[0]))) {
            p.load(in);
        }
        String jvm = p.getProperty("jvm");
        Path dir = Path.of(p.getProperty("dir"));
        BlockingQueue<String> commands = new LinkedBlockingQueue<>();
        Thread stdin = new Thread(() -> readCommands(commands), "chaos-stdin");
        stdin.setDaemon(true);
        stdin.start();
        try (HistoryWriter history = new HistoryWriter(dir.resolve("history-" + jvm + ".log"), jvm);
                LeaseProbe probe = new LeaseProbe(p);
                LockClient client =
                        LockClient.create(options(p, history, Long.parseLong(p.getProperty("fairWaitMillis"))));
                // The waiter lines' own client: a fair-lock wait timeout as long as a user's, so that a
                // fair waiter that hears no release waits a third of it (10 s) before it tries again.
                LockClient linesClient =
                        LockClient.create(options(p, history, ChaosOperations.LINE_FAIR_WAIT_MILLIS))) {
            FencedLedger ledger = new FencedLedger(dir);
            ExclusionRegister register = new ExclusionRegister(dir);
            boolean broken = Boolean.parseBoolean(p.getProperty("broken", "false"));
            ChaosOperations operations = new ChaosOperations(client, history, ledger, register, probe, broken);
            ChaosOperations lineOperations = new ChaosOperations(linesClient, history, ledger, register, probe, broken);
            operations.warmUp();
            lineOperations.warmUp();
            List<String> baseline = ThreadCensus.names();
            say("READY");
            expect(commands, "GO");
            long deadline = System.currentTimeMillis() + Long.parseLong(p.getProperty("millis"));
            int threads = Integer.parseInt(p.getProperty("threads"));
            long seed = Long.parseLong(p.getProperty("seed"));
            ExecutorService handoff = Executors.newCachedThreadPool(r -> new Thread(r, "chaos-handoff"));
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long threadSeed = seed * 1_000_003L + jvm.hashCode() * 31L + t;
                Thread worker = new Thread(() -> operations.run(threadSeed, deadline, handoff), "chaos-op-" + t);
                worker.start();
                workers.add(worker);
            }
            int hot = Integer.parseInt(p.getProperty("hotThreads", "0"));
            for (int t = 0; t < hot; t++) {
                long threadSeed = seed * 1_000_003L + jvm.hashCode() * 31L + 1000 + t;
                Thread worker = new Thread(() -> operations.runHot(threadSeed, deadline), "chaos-hot-" + t);
                worker.start();
                workers.add(worker);
            }
            int semaphoreCallers = Integer.parseInt(p.getProperty("semaphoreThreads", "0"));
            for (int t = 0; t < semaphoreCallers; t++) {
                long threadSeed = seed * 1_000_003L + jvm.hashCode() * 31L + 3000 + t;
                Thread worker =
                        new Thread(() -> operations.runSemaphores(threadSeed, deadline), "chaos-semaphore-" + t);
                worker.start();
                workers.add(worker);
            }
            int lines = Integer.parseInt(p.getProperty("lineThreads", "0"));
            for (int t = 0; t < lines; t++) {
                long threadSeed = seed * 1_000_003L + jvm.hashCode() * 31L + 2000 + t;
                Thread worker = new Thread(() -> lineOperations.runLine(threadSeed, deadline), "chaos-line-" + t);
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) {
                worker.join();
            }
            handoff.shutdown();
            handoff.awaitTermination(60, TimeUnit.SECONDS);
            say("IDLE " + ThreadCensus.leakedSince(baseline, Duration.ofSeconds(15)));
            expect(commands, "CLOSE");
        }
        say("CLOSED");
        System.exit(0);
    }

    private static LockClientOptions options(Properties p, HistoryWriter history, long fairWaitMillis) {
        LockClientOptions.Builder builder = LockClientOptions.builder()
                .watchdogTimeout(Duration.ofMillis(Long.parseLong(p.getProperty("watchdogMillis"))))
                .commandTimeout(Duration.ofMillis(Long.parseLong(p.getProperty("commandTimeoutMillis"))))
                .fairLockWaitTimeout(Duration.ofMillis(fairWaitMillis))
                .keyPrefix(ChaosRun.KEY_PREFIX)
                .clientName(ChaosRun.CLIENT_NAME_PREFIX + p.getProperty("jvm"))
                .listener(new LockListener() {
                    @Override
                    public void onLeaseLost(String lockName, long ownerId) {
                        history.record(
                                -1, -1, Type.LOST, Phase.OK, Kind.REENTRANT, List.of(lockName), ownerId, 0, 0, 0, "-");
                    }
                });
        String[] uris = p.getProperty("uris").split(",");
        return switch (p.getProperty("topology")) {
            case "standalone" -> builder.uri(uris[0]).build();
            case "sentinel" -> builder.sentinel(p.getProperty("master"), uris).build();
            case "cluster" -> builder.cluster(uris).build();
            default -> throw new IllegalArgumentException("unknown topology " + p.getProperty("topology"));
        };
    }

    private static void readCommands(BlockingQueue<String> commands) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                commands.add(line.trim());
            }
        } catch (Exception ignored) {
            // the harness is gone: exit below
        }
        // Standard input closed: the harness died or gave up on this JVM. Do not outlive it.
        Runtime.getRuntime().halt(3);
    }

    private static void expect(BlockingQueue<String> commands, String command) throws InterruptedException {
        while (!command.equals(commands.take())) {
            // ignore anything else
        }
    }

    // The protocol channel to the harness is this process's standard output.
    @SuppressWarnings("java:S106")
    private static void say(String line) {
        System.out.println("CHAOS " + line);
        System.out.flush();
    }
}
