package dev.distlock.core.internal.connection;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The two long-lived connections a lock client needs, whatever the topology: one multiplexed
 * command connection and one pub/sub connection. Both are opened on first use, so a client can be
 * created while Redis is down. Replica-synced acquisitions borrow connections of their own.
 */
public interface RedisConnector extends AutoCloseable {

    /**
     * Returns the command connection's async API, connecting first if needed; inside
     * {@link SyncedConnection#route} the lent connection's instead.
     * @return async commands, routed by key slot in a cluster
     */
    RedisClusterAsyncCommands<String, String> commands();

    /**
     * Returns whether {@link #commands()} answers without blocking: the command connection is open.
     * Callers that must not block open it from a thread of their own first.
     * @return whether the command connection is ready
     */
    boolean commandsReady();

    /**
     * Returns a future completed when a connection may have become usable again (reconnected, or
     * a Cluster topology change): a hint for calls that wait for a reconnect, never a promise.
     * Take it before a write that may be refused, so that a change in between is not missed.
     * @return completes at the next change
     */
    CompletableFuture<Void> nextConnectionChange();

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
     * Lends a connection of its own to the master that owns the key, for an acquisition that
     * {@code WAIT} must confirm: its script and the {@code WAIT} run there (route the script with
     * {@link SyncedConnection#route}), so that the {@code WAIT} counts that write and blocks no other
     * lock's commands.
     * @param key the key about to be written
     * @return the connection; hand it back when done
     */
    SyncedConnection borrowSynced(String key);

    /**
     * Returns whether PUBLISH's reply counts every subscriber of the channel. True for a single
     * server and Sentinel; false in a cluster, where it counts only the receiving node's own.
     * @return whether subscriber counts are exact
     */
    default boolean exactSubscriberCounts() {
        return true;
    }

    /**
     * Returns whether unlock channels are sharded ({@code SSUBSCRIBE}/{@code SPUBLISH}): in a
     * cluster whose servers know sharded pub/sub (Redis 7+), decided as Redisson decides it, so
     * that both libraries publish and listen on the same kind of channel. Never waits for Redis
     * (it is asked on Redis I/O threads too): a cluster learns it as its command connection opens.
     * @return whether pub/sub is sharded
     * @throws dev.distlock.core.LockException while that is not known yet (the servers could not be
     *     asked); they are asked again meanwhile, without waiting
     */
    default boolean shardedPubSub() {
        return false;
    }

    /**
     * Returns whether the scripts announce releases with {@code SPUBLISH}: {@link #shardedPubSub()},
     * and {@code false} while that is not known yet, as plain {@code PUBLISH} always works. Never
     * waits for Redis.
     * @return whether releases publish on sharded channels
     */
    default boolean publishesSharded() {
        return shardedPubSub();
    }

    /**
     * Returns the node that serves a sharded channel now: the id of the master of the channel's
     * Cluster slot, as the pub/sub connection routes a {@code SSUBSCRIBE} to it. A subscription made
     * on another node is lost for good once that node stops serving the slot (a failover, a slot
     * migration), so it must be made again where this points.
     * @param channel a channel name
     * @return the serving node's id, or {@code null} where channels are not sharded or the node is not known yet
     */
    default @Nullable String shardServer(String channel) {
        return null;
    }

    /**
     * Registers a callback run whenever the topology may have changed (a Cluster's slots moved to
     * other nodes); a hint, run on a Lettuce thread that must not block.
     * @param callback run at each change
     */
    default void onTopologyChange(Runnable callback) {}

    /**
     * Returns the command the scripts publish wake-ups with.
     * @return {@code SPUBLISH} when {@link #publishesSharded()}, else {@code PUBLISH}; never waits
     */
    default String publishCommand() {
        return publishesSharded() ? "SPUBLISH" : "PUBLISH";
    }

    /**
     * Told of every script call that failed with an error reply; a connector whose connection can
     * end up on the wrong server (a Sentinel master demoted in place answers {@code READONLY})
     * reconnects here.
     * @param failure the error reply
     */
    default void commandFailed(Throwable failure) {}

    /**
     * Returns the eviction policy of each server this connector writes locks to, read once per
     * connect of the command connection (and, in a Cluster, of each master's).
     * @return the policies known now
     */
    EvictionPolicies evictionPolicies();

    /**
     * Describes the target for messages, without credentials.
     * @return e.g. {@code redis://127.0.0.1:6379}
     */
    String describe();

    @Override
    void close();
}
