package dev.distlock.core.internal.connection;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/** A single server, or a Sentinel group (Lettuce re-resolves the master on every reconnect). */
final class StandaloneConnector implements RedisConnector {

    private final RedisClient client;
    private final String description;
    private final LazyConnection<StatefulRedisConnection<String, String>> commands;
    private final LazyConnection<StatefulRedisPubSubConnection<String, String>> pubSub;

    StandaloneConnector(RedisClient client, RedisURI uri) {
        this.client = client;
        this.description = RedisConnectors.describe(uri);
        this.commands = new LazyConnection<>(() -> client.connect(StringCodec.UTF8, uri), description);
        this.pubSub = new LazyConnection<>(() -> client.connectPubSub(StringCodec.UTF8, uri), description);
    }

    @Override
    public RedisClusterAsyncCommands<String, String> commands() {
        return commands.get().async();
    }

    @Override
    public StatefulRedisPubSubConnection<String, String> pubSub() {
        return pubSub.get();
    }

    @Override
    public int batchGroup(String key) {
        return 0;
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        pubSub.close();
        commands.close();
        client.shutdown();
    }
}
