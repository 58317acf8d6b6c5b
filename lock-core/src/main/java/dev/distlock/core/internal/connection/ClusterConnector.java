package dev.distlock.core.internal.connection;

import java.util.List;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * A Redis Cluster. Scripts are routed by their first key's slot and follow MOVED/ASK redirects;
 * plain PUBLISH reaches subscribers on every node, so one pub/sub connection suffices.
 */
final class ClusterConnector implements RedisConnector {

    private final RedisClusterClient client;
    private final String description;
    private final LazyConnection<StatefulRedisClusterConnection<String, String>> commands;
    private final LazyConnection<StatefulRedisClusterPubSubConnection<String, String>> pubSub;

    ClusterConnector(RedisClusterClient client, List<RedisURI> seeds) {
        this.client = client;
        this.description = "cluster " + seeds.stream().map(RedisConnectors::describe).toList();
        this.commands = new LazyConnection<>(() -> client.connect(StringCodec.UTF8), description);
        this.pubSub = new LazyConnection<>(() -> client.connectPubSub(StringCodec.UTF8), description);
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
        return SlotHash.getSlot(key);
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
