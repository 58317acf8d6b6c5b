package dev.distlock.core.internal.connection;

import java.util.concurrent.CompletableFuture;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * The two long-lived connections a lock client needs, whatever the topology: one multiplexed
 * command connection and one pub/sub connection. Both are opened on first use, so a client can be
 * created while Redis is down.
 */
public interface RedisConnector extends AutoCloseable {

    /**
     * Returns the command connection's async API, connecting first if needed.
     * @return async commands, routed by key slot in a cluster
     */
    RedisClusterAsyncCommands<String, String> commands();

    /**
     * Returns the pub/sub connection, connecting first if needed.
     * @return the pub/sub connection
     */
    StatefulRedisPubSubConnection<String, String> pubSub();

    /**
     * Returns the group a key's renewals are batched in: its cluster slot, or 0 outside a cluster.
     * @param key a Redis key
     * @return batch group of the key
     */
    int batchGroup(String key);

    /**
     * Runs {@code WAIT} on the connection that wrote the key, so that it counts the replicas that
     * acknowledged that write.
     * @param key the key just written (routes the command in a cluster)
     * @param replicas replicas to wait for
     * @param timeoutMillis how long the server waits
     * @return how many replicas acknowledged
     */
    default CompletableFuture<Long> waitForReplicas(String key, int replicas, long timeoutMillis) {
        return commands().waitForReplication(replicas, timeoutMillis).toCompletableFuture();
    }

    /**
     * Describes the target for messages, without credentials.
     * @return e.g. {@code redis://127.0.0.1:6379}
     */
    String describe();

    @Override
    void close();
}
