package dev.distlock.core.internal.connection;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Reads the eviction policy of the server behind a single server's or a Sentinel group's command
 * connection each time that connection opens or reconnects: after a failover Lettuce reconnects it
 * to the new master, which is then the one server listed.
 *
 * <p>Lettuce tells of a connection's address as it activates, which may be just before or just
 * after {@code connect} hands the connection over; whichever of the two comes second asks.
 */
final class StandaloneEvictionCheck implements RedisConnectionStateListener {

    private final EvictionPolicies policies = new EvictionPolicies();

    // Every connection of the client passes here (pub/sub, sentinels, replica sync): only the
    // command connections are watched. Weak, so that a connection closed for good is forgotten.
    private final Set<RedisChannelHandler<?, ?>> watched =
            Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
    private final Map<RedisChannelHandler<?, ?>, SocketAddress> addresses =
            Collections.synchronizedMap(new WeakHashMap<>());

    StandaloneEvictionCheck(AbstractRedisClient client) {
        client.addListener(this);
    }

    /**
     * Watches a command connection that {@code connect} just returned, and asks its server now if
     * its address is already known.
     * @param connection the new command connection
     * @return the connection
     */
    StatefulRedisConnection<String, String> opened(StatefulRedisConnection<String, String> connection) {
        RedisChannelHandler<?, ?> handler = (RedisChannelHandler<?, ?>) connection;
        watched.add(handler);
        SocketAddress address = addresses.get(handler);
        if (address != null) {
            ask(connection, address);
        }
        return connection;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
        addresses.put(connection, address);
        if (watched.contains(connection)) {
            ask((StatefulRedisConnection<String, String>) connection, address);
        }
    }

    private void ask(StatefulRedisConnection<String, String> connection, SocketAddress address) {
        String server = server(address);
        // One server at a time: after a failover the old master no longer holds this client's locks.
        policies.retain(Set.of(server));
        policies.read(server, connection.async().info());
    }

    EvictionPolicies policies() {
        return policies;
    }

    static String server(SocketAddress address) {
        return address instanceof InetSocketAddress inet
                ? inet.getHostString() + ":" + inet.getPort()
                : String.valueOf(address);
    }
}
