package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Scenario E and the watchdog check, outside JMH because they count rather than time: what one
 * uncontended lock+unlock costs on the wire, and how many commands the watchdog sends to keep many
 * held locks alive.
 *
 * <p>Network commands come from {@code MONITOR}, which shows every command a client sent and,
 * tagged {@code [0 lua]}, every command a script ran; {@code INFO commandstats} cannot tell those
 * apart. Bytes come from {@code INFO stats} deltas taken without {@code MONITOR} (it would add its
 * own output), less the bytes of the {@code INFO} calls themselves.
 */
final class CommandCounter {

    private static final int WARMUP = 300;
    private static final int BYTES_CYCLES = 1000;
    private static final int MONITOR_CYCLES = 200;

    /**
     * Cost of one uncontended lock+unlock.
     * @param networkCommands commands the client sent (MONITOR), per lock+unlock
     * @param redisCalls commandstats calls, including those inside scripts, per lock+unlock
     * @param bytesIn bytes the server received, per lock+unlock
     * @param bytesOut bytes the server sent, per lock+unlock
     * @param cpuMicros server CPU time per lock+unlock, in microseconds
     * @param connections client connections the library held open
     * @param commands network commands by name, per 100 lock+unlock
     */
    record Cost(
            double networkCommands,
            double redisCalls,
            double bytesIn,
            double bytesOut,
            double cpuMicros,
            int connections,
            Map<String, Long> commands) {}

    /**
     * Watchdog renewal traffic.
     * @param heldLocks watchdog locks held during the window
     * @param periods renewal periods in the window
     * @param renewalCommands network commands sent in the window
     */
    record Renewals(int heldLocks, double periods, long renewalCommands) {}

    private final int port;

    CommandCounter(int port) {
        this.port = port;
    }

    Cost uncontended(String lib) throws InterruptedException {
        try (RedisAdmin admin = new RedisAdmin(BenchmarkServer.HOST, port);
                LockLibrary library = LockLibrary.open(lib, BenchmarkServer.HOST, port)) {
            admin.command("FLUSHALL");
            cycles(library, lib + ":warm:", WARMUP);
            RedisStats probeA = admin.stats();
            RedisStats probeB = admin.stats();
            RedisStats own = probeB.minus(probeA);
            RedisStats before = admin.stats();
            cycles(library, lib + ":bytes:", BYTES_CYCLES);
            RedisStats delta = admin.stats().minus(before);
            double in = (delta.netInputBytes() - own.netInputBytes()) / (double) BYTES_CYCLES;
            double out = (delta.netOutputBytes() - own.netOutputBytes()) / (double) BYTES_CYCLES;
            double calls = delta.totalCalls() / (double) BYTES_CYCLES;
            double cpu = (delta.cpuMicros() - own.cpuMicros()) / (double) BYTES_CYCLES;
            int connections = (int) admin.command("CLIENT", "LIST")
                            .lines()
                            .filter(l -> l.contains("cmd="))
                            .count()
                    - 1;

            Map<String, Long> network = new TreeMap<>();
            long sent = monitor(admin, () -> cycles(library, lib + ":monitor:", MONITOR_CYCLES), network);
            network.replaceAll((k, v) -> Math.round(v * 100.0 / MONITOR_CYCLES));
            return new Cost(sent / (double) MONITOR_CYCLES, calls, in, out, cpu, connections, network);
        }
    }

    Renewals watchdog(String lib, int heldLocks, Duration watchdog) throws InterruptedException {
        try (RedisAdmin admin = new RedisAdmin(BenchmarkServer.HOST, port);
                LockLibrary library = LockLibrary.open(lib, BenchmarkServer.HOST, port, watchdog)) {
            admin.command("FLUSHALL");
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < heldLocks; i++) {
                String key = lib + ":held:" + i;
                if (!library.lock(key, 1000)) {
                    throw new IllegalStateException(lib + " did not take '" + key + "'");
                }
                keys.add(key);
            }
            long window = watchdog.toMillis() + watchdog.toMillis() / 10;
            long sent = monitor(admin, () -> Thread.sleep(window), new TreeMap<>());
            for (String key : keys) {
                library.unlock(key);
            }
            return new Renewals(heldLocks, window / (watchdog.toMillis() / 3.0), sent);
        }
    }

    private static void cycles(LockLibrary library, String prefix, int count) throws InterruptedException {
        for (int i = 0; i < count; i++) {
            String key = prefix + i;
            if (!library.lock(key, 1000)) {
                throw new IllegalStateException("uncontended lock '" + key + "' was not taken");
            }
            library.unlock(key);
        }
    }

    /** Runs the action under MONITOR and returns how many commands clients sent meanwhile. */
    private long monitor(RedisAdmin admin, Action action, Map<String, Long> byCommand) throws InterruptedException {
        String marker = "distlock-bench-end-" + System.nanoTime();
        try (RedisAdmin monitor = new RedisAdmin(BenchmarkServer.HOST, port)) {
            monitor.send("MONITOR");
            monitor.readLine();
            action.run();
            admin.command("ECHO", marker);
            long sent = 0;
            while (true) {
                String line = monitor.readLine();
                if (line.contains(marker)) {
                    return sent;
                }
                if (line.contains("[0 lua]")) {
                    continue;
                }
                sent++;
                int at = line.indexOf("] \"");
                if (at > 0) {
                    String command =
                            line.substring(at + 3, line.indexOf('"', at + 3)).toLowerCase();
                    byCommand.merge(command, 1L, Long::sum);
                }
            }
        }
    }

    @FunctionalInterface
    private interface Action {
        void run() throws InterruptedException;
    }
}
