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

/**
 * Reads, in one atomic script on its own connection, whether an owner field is in a lock's hash and
 * how much lease the key has left (or whether a permit is in a semaphore's timeout set and how much
 * lease it has left). A reply "held, {@code r} ms left" read by a call sent at {@code t}
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

    /**
     * A read hold lives as long as the key and the longest of its owner's own timeout keys
     * ({@code {key}:<field>:rwlock_timeout:<n>}, one per hold), whichever ends first.
     */
    private static final String READ_SCRIPT = "local count = tonumber(redis.call('hget', KEYS[1], ARGV[1]))"
            + " if not count then return " + GONE + " end"
            + " local longest = -3"
            + " for i = count, 1, -1 do"
            + "  local t = redis.call('pttl', ARGV[2] .. ':' .. ARGV[1] .. ':rwlock_timeout:' .. i)"
            + "  if t ~= -2 then longest = math.max(longest, t) end"
            + " end"
            + " if longest == -3 then return " + GONE + " end"
            + " return math.min(longest, redis.call('pttl', KEYS[1]))";

    /**
     * A permit lives until its score in the semaphore's timeout set, on the server's clock; the set's
     * members are the permit ids' bytes. A permit past its expiry is as good as given back.
     */
    private static final String PERMIT_SCRIPT =
            "local id = (string.gsub(ARGV[1], '..', function(p) return string.char(tonumber(p, 16)) end))"
                    + " local expiry = redis.call('zscore', KEYS[1], id)"
                    + " if expiry == false then return " + GONE + " end"
                    + " local t = redis.call('time')"
                    + " local left = tonumber(expiry) - (tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))"
                    + " if left <= 0 then return " + GONE + " end"
                    + " return left";

    private final AutoCloseable client;
    private final AutoCloseable connection;
    private final Evaluator eval;

    /** One script run on the probe's connection. */
    private interface Evaluator {
        Long run(String script, String key, String... args);
    }

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
                eval = (script, key, args) -> c.sync().eval(script, ScriptOutputType.INTEGER, new String[] {key}, args);
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
                eval = (script, key, args) -> c.sync().eval(script, ScriptOutputType.INTEGER, new String[] {key}, args);
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
        return eval.run(SCRIPT, key, field);
    }

    /**
     * @param key the read-write lock's key
     * @param field the reader's field in the lock's hash
     * @return the read hold's lease left in ms, or {@link #GONE}
     * @throws RuntimeException when Redis could not be asked
     */
    long readLeaseLeft(String key, String field) {
        String base = key.contains("{") ? key : "{" + key + "}";
        return eval.run(READ_SCRIPT, key, field, base);
    }

    /**
     * @param timeoutKey the semaphore's timeout set
     * @param permitId the permit's id, hex text
     * @return the permit's lease left in ms, or {@link #GONE}
     * @throws RuntimeException when Redis could not be asked
     */
    long permitLeaseLeft(String timeoutKey, String permitId) {
        return eval.run(PERMIT_SCRIPT, timeoutKey, permitId);
    }

    @Override
    public void close() throws Exception {
        connection.close();
        client.close();
    }
}
