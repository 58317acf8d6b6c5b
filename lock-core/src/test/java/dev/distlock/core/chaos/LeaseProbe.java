package dev.distlock.core.chaos;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.function.BiFunction;

/**
 * Reads, in one atomic script on its own connection, whether an owner field is in a lock's hash and
 * how much lease the key has left. A reply "held, {@code r} ms left" read by a call sent at {@code t}
 * proves the hold's lease lasts until at least {@code t + r} (Redis ran the script no earlier than
 * {@code t}); {@link ChaosChecker} counts a hold as valid that long, whatever happens to it after.
 *
 * <p>The connection is named {@code chaos-probe-<jvm>}, so the nemesis's connection kills (which
 * match {@code chaos-<jvm>}) leave it alone; a probe that fails (a paused or restarted node) proves
 * nothing and is recorded as such.
 */
final class LeaseProbe implements AutoCloseable {

    /** Reply when the field is not in the hash. */
    static final long GONE = -3;

    private static final String SCRIPT = "if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then"
            + " return redis.call('pttl', KEYS[1]) end return " + GONE;

    private final AutoCloseable client;
    private final AutoCloseable connection;
    private final BiFunction<String, String, Long> eval;

    LeaseProbe(Properties p) {
        String name = "chaos-probe-" + p.getProperty("jvm");
        List<RedisURI> uris = Arrays.stream(p.getProperty("uris").split(","))
                .map(RedisURI::create)
                .toList();
        Duration timeout = Duration.ofSeconds(1);
        switch (p.getProperty("topology")) {
            case "cluster" -> {
                RedisClusterClient cluster = RedisClusterClient.create(uris);
                StatefulRedisClusterConnection<String, String> c = cluster.connect();
                c.setTimeout(timeout);
                c.sync().clientSetname(name);
                client = cluster::shutdown;
                connection = c;
                eval = (key, field) -> c.sync().eval(SCRIPT, ScriptOutputType.INTEGER, new String[] {key}, field);
            }
            case "sentinel", "standalone" -> {
                RedisURI uri;
                if ("sentinel".equals(p.getProperty("topology"))) {
                    RedisURI.Builder builder = RedisURI.Builder.sentinel(
                            uris.get(0).getHost(), uris.get(0).getPort(), p.getProperty("master"));
                    uris.stream().skip(1).forEach(s -> builder.withSentinel(s.getHost(), s.getPort()));
                    uri = builder.withClientName(name).build();
                } else {
                    uri = RedisURI.builder(uris.get(0)).withClientName(name).build();
                }
                RedisClient standalone = RedisClient.create(uri);
                StatefulRedisConnection<String, String> c = standalone.connect();
                c.setTimeout(timeout);
                client = standalone::shutdown;
                connection = c;
                eval = (key, field) -> c.sync().eval(SCRIPT, ScriptOutputType.INTEGER, new String[] {key}, field);
            }
            default -> throw new IllegalArgumentException("unknown topology " + p.getProperty("topology"));
        }
    }

    /**
     * @param key the lock's key
     * @param field the owner's field in the lock's hash
     * @return the lease left in ms, {@code -1} when the key has no expiry, or {@link #GONE}
     * @throws RuntimeException when Redis could not be asked
     */
    long leaseLeft(String key, String field) {
        return eval.apply(key, field);
    }

    @Override
    public void close() throws Exception {
        connection.close();
        client.close();
    }
}
