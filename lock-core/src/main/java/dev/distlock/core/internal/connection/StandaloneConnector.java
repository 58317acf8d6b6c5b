package dev.distlock.core.internal.connection;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.CompletableFuture;

/** A single server, or a Sentinel group (Lettuce re-resolves the master on every reconnect). */
final class StandaloneConnector implements RedisConnector {

    private final RedisClient client;
    private final String description;
    private final LazyConnection<StatefulRedisConnection<String, String>> commands;
    private final LazyConnection<StatefulRedisPubSubConnection<String, String>> pubSub;
    private final RedisURI uri;
    private final DedicatedConnections synced;
    private final ConnectionChanges changes;
    private final Runnable onClose;
    private final StandaloneEvictionCheck evictionCheck;

    StandaloneConnector(RedisClient client, RedisURI uri, ConnectionChanges changes, Runnable onClose) {
        this.client = client;
        this.changes = changes;
        this.onClose = onClose;
        this.description = RedisConnectors.describe(uri);
        this.uri = uri;
        this.synced = new DedicatedConnections(client);
        this.evictionCheck = new StandaloneEvictionCheck(client);
        this.commands =
                new LazyConnection<>(() -> evictionCheck.opened(client.connect(StringCodec.UTF8, uri)), description);
        this.pubSub = new LazyConnection<>(() -> client.connectPubSub(StringCodec.UTF8, uri), description);
    }

    @Override
    public RedisClusterAsyncCommands<String, String> commands() {
        SyncedConnection routed = SyncedConnection.routed();
        return routed != null ? routed.commands() : commands.get().async();
    }

    @Override
    public SyncedConnection borrowSynced(String key) {
        // With Sentinel the URI names the group: every new connection goes to the current master.
        return synced.borrow(uri, description);
    }

    @Override
    public boolean commandsReady() {
        return commands.current() != null;
    }

    @Override
    public CompletableFuture<Void> nextConnectionChange() {
        return changes.next();
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
    public void commandFailed(Throwable failure) {
        // Sentinel may demote the master without closing our connection to it; every write there is
        // refused with READONLY until the connection breaks. Lettuce asks the sentinels for the
        // current master whenever it opens a connection, so open a new one.
        StatefulRedisConnection<String, String> current = commands.current();
        if (current != null
                && !uri.getSentinels().isEmpty()
                && failure instanceof RedisCommandExecutionException
                && refusedAsReplica(String.valueOf(failure.getMessage()))) {
            commands.reopen(current);
        }
    }

    /** Redis 7 answers a script's refused write with {@code READONLY ...}; Redis 6 wraps it in its script error. */
    private static boolean refusedAsReplica(String message) {
        return message.startsWith("READONLY") || message.contains("-READONLY ");
    }

    @Override
    public EvictionPolicies evictionPolicies() {
        return evictionCheck.policies();
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        synced.close();
        pubSub.close();
        commands.close();
        BoundedClose.shutdown("Redis client", client);
        onClose.run();
    }
}
