package dev.distlock.benchmarks;

import java.util.Map;
import java.util.TreeMap;

/**
 * Server counters at one moment: calls per command ({@code INFO commandstats}, which in Redis 6.2
 * also counts the commands a script runs) and network bytes ({@code INFO stats}).
 *
 * @param calls calls per command name, lower case
 * @param netInputBytes total_net_input_bytes
 * @param netOutputBytes total_net_output_bytes
 * @param cpuMicros the server's CPU time, user plus system ({@code INFO cpu}), in microseconds
 */
record RedisStats(Map<String, Long> calls, long netInputBytes, long netOutputBytes, long cpuMicros) {

    static RedisStats parse(String info) {
        Map<String, Long> calls = new TreeMap<>();
        long in = 0;
        long out = 0;
        double cpu = 0;
        for (String raw : info.split("\n")) {
            String line = raw.trim();
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                int at = line.indexOf("calls=") + "calls=".length();
                int end = line.indexOf(',', at);
                calls.put(name, Long.parseLong(line.substring(at, end < 0 ? line.length() : end)));
            } else if (line.startsWith("total_net_input_bytes:")) {
                in = Long.parseLong(line.substring(line.indexOf(':') + 1));
            } else if (line.startsWith("total_net_output_bytes:")) {
                out = Long.parseLong(line.substring(line.indexOf(':') + 1));
            } else if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                cpu += Double.parseDouble(line.substring(line.indexOf(':') + 1));
            }
        }
        return new RedisStats(calls, in, out, Math.round(cpu * 1_000_000));
    }

    /**
     * Returns the counters accrued since an earlier snapshot.
     * @param before the earlier snapshot
     * @return the difference
     */
    RedisStats minus(RedisStats before) {
        Map<String, Long> delta = new TreeMap<>();
        calls.forEach((name, n) -> {
            long d = n - before.calls.getOrDefault(name, 0L);
            if (d != 0) {
                delta.put(name, d);
            }
        });
        return new RedisStats(
                delta,
                netInputBytes - before.netInputBytes,
                netOutputBytes - before.netOutputBytes,
                cpuMicros - before.cpuMicros);
    }

    /** @return calls summed over all commands but the measurement's own ({@code info}, {@code flushall}, {@code monitor}) */
    long totalCalls() {
        return calls.entrySet().stream()
                .filter(e -> !isMeasurement(e.getKey()))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    /** @return {@code EVAL} plus {@code EVALSHA} calls: the scripts sent over the network */
    long scriptCalls() {
        return calls.getOrDefault("eval", 0L) + calls.getOrDefault("evalsha", 0L);
    }

    private static boolean isMeasurement(String command) {
        return command.equals("info") || command.equals("flushall") || command.equals("monitor");
    }
}
