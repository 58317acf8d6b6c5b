package dev.distlock.core.internal.connection;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockException;
import io.lettuce.core.RedisCommandExecutionException;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.protocol.ConnectionIntent;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * A Redis Cluster. Scripts are routed by their first key's slot and follow MOVED/ASK redirects.
 * Where the servers know sharded pub/sub (Redis 7+) unlock channels are sharded, as Redisson's are:
 * SSUBSCRIBE is routed to the node serving the channel's slot, and the scripts SPUBLISH there.
 * Otherwise plain PUBLISH reaches subscribers on every node, so one pub/sub connection suffices.
 */
final class ClusterConnector implements RedisConnector {

    private final RedisClusterClient client;
    private final String description;
    private final LazyConnection<StatefulRedisClusterConnection<String, String>> commands;
    private final LazyConnection<StatefulRedisClusterPubSubConnection<String, String>> pubSub;
    private final long timeoutMillis;
    private volatile @Nullable Boolean sharded;

    ClusterConnector(RedisClusterClient client, List<RedisURI> seeds, long timeoutMillis) {
        this.client = client;
        this.timeoutMillis = timeoutMillis;
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
    public CompletableFuture<Long> waitForReplicas(String key, int replicas, long timeoutMillis) {
        // WAIT counts acknowledgements of this connection's writes, so it must run on the very node
        // connection that carried the slot-routed script: the pooled write connection of the
        // slot's master, keyed by host and port.
        StatefulRedisClusterConnection<String, String> connection = commands.get();
        RedisClusterNode master = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
        if (master == null) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("No master serves slot " + SlotHash.getSlot(key) + " of key '" + key + "'"));
        }
        return connection.getConnectionAsync(master.getUri().getHost(), master.getUri().getPort(), ConnectionIntent.WRITE)
                .thenCompose(node -> node.async().waitForReplication(replicas, timeoutMillis).toCompletableFuture());
    }

    @Override
    public boolean shardedPubSub() {
        Boolean known = sharded;
        if (known != null) {
            return known;
        }
        // Redisson's test: servers that answer PUBSUB SHARDNUMSUB support sharded pub/sub. Only a
        // definite answer is remembered; a connection failure is asked again next time.
        boolean supported;
        try {
            commands().pubsubShardNumsub("0").get(timeoutMillis, TimeUnit.MILLISECONDS);
            supported = true;
        }
        catch (ExecutionException ex) {
            if (!(ex.getCause() instanceof RedisCommandExecutionException)) {
                throw new LockException("Cannot ask " + description + " whether it supports sharded pub/sub: "
                        + ex.getCause().getMessage(), ex.getCause());
            }
            supported = false;
        }
        catch (TimeoutException ex) {
            throw new LockException("Cannot ask " + description + " whether it supports sharded pub/sub: no reply within "
                    + timeoutMillis + " ms", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockException("Interrupted while asking " + description + " whether it supports sharded pub/sub", ex);
        }
        sharded = supported;
        return supported;
    }

    @Override
    public boolean exactSubscriberCounts() {
        return false;
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
