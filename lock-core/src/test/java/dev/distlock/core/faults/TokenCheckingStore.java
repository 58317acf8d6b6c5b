package dev.distlock.core.faults;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * A resource that is safe under fencing: it remembers the highest token it has seen and rejects
 * writes that carry a lower one (Kleppmann's storage service), implemented as one Redis script.
 */
final class TokenCheckingStore implements AutoCloseable {

    private static final String WRITE =
            """
            local highest = tonumber(redis.call('get', KEYS[1] .. ':highest-token') or '0')
            if tonumber(ARGV[1]) < highest then
                return 0
            end
            redis.call('set', KEYS[1] .. ':highest-token', ARGV[1])
            redis.call('set', KEYS[1], ARGV[2])
            return 1
            """;

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    TokenCheckingStore(String uri) {
        this.client = RedisClient.create(uri);
        this.connection = client.connect();
    }

    boolean write(String key, long token, String value) {
        Long accepted = connection
                .sync()
                .eval(WRITE, ScriptOutputType.INTEGER, new String[] {key}, Long.toString(token), value);
        return accepted == 1;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
