package dev.distlock.core.internal.connection;

import java.util.List;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import dev.distlock.core.LockClientOptions;

/** Builds the connector for the topology the options name. */
public final class RedisConnectors {

    private RedisConnectors() {
    }

    /**
     * Creates a connector; nothing connects until first use.
     * @param options client options
     * @return the connector
     */
    public static RedisConnector create(LockClientOptions options) {
        if (!options.clusterNodes().isEmpty()) {
            List<RedisURI> seeds = options.clusterNodes().stream().map(node -> uri(node, options)).toList();
            RedisClusterClient client = RedisClusterClient.create(seeds);
            client.setOptions(ClusterClientOptions.builder()
                    .timeoutOptions(TimeoutOptions.enabled(options.commandTimeout()))
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers()
                            .build())
                    .build());
            return new ClusterConnector(client, seeds);
        }
        RedisURI target = options.sentinelMaster() != null ? sentinelUri(options) : uri(options.uri(), options);
        RedisClient client = RedisClient.create();
        client.setOptions(ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(options.commandTimeout()))
                // Fail at once while disconnected: a queued lock script could run long after the
                // caller gave up on it and leave a hold nobody knows about.
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        return new StandaloneConnector(client, target);
    }

    private static RedisURI uri(String value, LockClientOptions options) {
        RedisURI uri;
        try {
            uri = RedisURI.create(value);
        }
        catch (RuntimeException ex) {
            throw new IllegalArgumentException("Invalid Redis URI '" + redact(value) + "': " + ex.getMessage(), ex);
        }
        uri.setTimeout(options.commandTimeout());
        if (options.clientName() != null) {
            uri.setClientName(options.clientName());
        }
        return uri;
    }

    private static RedisURI sentinelUri(LockClientOptions options) {
        RedisURI.Builder builder = RedisURI.builder().withSentinelMasterId(options.sentinelMaster());
        for (String node : options.sentinelNodes()) {
            builder.withSentinel(uri(node, options));
        }
        builder.withTimeout(options.commandTimeout());
        if (options.clientName() != null) {
            builder.withClientName(options.clientName());
        }
        return builder.build();
    }

    static String describe(RedisURI uri) {
        if (uri.getSentinelMasterId() != null) {
            return "sentinel master '" + uri.getSentinelMasterId() + "' via "
                    + uri.getSentinels().stream().map(s -> s.getHost() + ":" + s.getPort()).toList();
        }
        return (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort() + "/" + uri.getDatabase();
    }

    /**
     * Removes credentials from a URI string for messages.
     * @param value a URI that may contain {@code user:password@}
     * @return the URI without credentials
     */
    public static String redact(String value) {
        return value.replaceAll("//[^@/]*@", "//***@");
    }
}
