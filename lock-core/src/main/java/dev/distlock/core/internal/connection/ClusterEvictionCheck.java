package dev.distlock.core.internal.connection;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Reads the eviction policy of every master that serves slots, once the cluster connection opens,
 * and of a master again whenever a connection to it opens: a node restarted or a replica promoted
 * in a failover is asked when the client first reaches it. Masters that no longer serve slots are
 * dropped from the list.
 */
final class ClusterEvictionCheck implements RedisConnectionStateListener {

    private final EvictionPolicies policies = new EvictionPolicies();
    private final Supplier<@Nullable StatefulRedisClusterConnection<String, String>> current;

    ClusterEvictionCheck(
            RedisClusterClient client, Supplier<@Nullable StatefulRedisClusterConnection<String, String>> current) {
        this.current = current;
        client.addListener(this);
    }

    /**
     * Asks every master, once {@code connect} returned the cluster connection.
     * @param connection the new cluster connection
     * @return the connection
     */
    StatefulRedisClusterConnection<String, String> opened(StatefulRedisClusterConnection<String, String> connection) {
        ask(connection, null);
        return connection;
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
        // Any connection of the client to a master (the node connections the scripts use, the
        // topology refresh's, pub/sub): the node may be new or restarted. Before the cluster
        // connection opened, opened(...) asks them all.
        StatefulRedisClusterConnection<String, String> cluster = current.get();
        if (cluster != null) {
            ask(cluster, address);
        }
    }

    private void ask(StatefulRedisClusterConnection<String, String> cluster, @Nullable SocketAddress only) {
        List<String> masters = new ArrayList<>();
        for (RedisClusterNode node : cluster.getPartitions()) {
            if (!node.getRole().isUpstream() || node.getSlots().isEmpty()) {
                continue;
            }
            RedisURI uri = node.getUri();
            String server = uri.getHost() + ":" + uri.getPort();
            masters.add(server);
            if (only == null || at(uri, only)) {
                // Asynchronous throughout: this may run on a Redis I/O thread.
                CompletableFuture<String> info = cluster.getConnectionAsync(uri.getHost(), uri.getPort())
                        .thenCompose(nodeConnection -> nodeConnection.async().info());
                policies.read(server, info);
            }
        }
        policies.retain(masters);
    }

    private static boolean at(RedisURI uri, SocketAddress address) {
        if (!(address instanceof InetSocketAddress inet) || inet.getPort() != uri.getPort()) {
            return false;
        }
        return uri.getHost().equals(inet.getHostString())
                || (inet.getAddress() != null
                        && uri.getHost().equals(inet.getAddress().getHostAddress()));
    }

    EvictionPolicies policies() {
        return policies;
    }
}
