package dev.distlock.core.internal.connection;

import dev.distlock.core.LockClientOptions;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.util.List;

/** Builds the connector for the topology the options name. */
public final class RedisConnectors {

    private RedisConnectors() {}

    /**
     * Creates a connector; nothing connects until first use.
     * @param options client options
     * @return the connector
     */
    public static RedisConnector create(LockClientOptions options) {
        Delay reconnectDelay = new ReconnectDelay(options.reconnectDelayMin(), options.reconnectDelayMax());
        // Shared resources stay open when this client shuts down; resources made here close with it.
        ClientResources shared = options.clientResources();
        ClientResources resources = shared != null
                ? new DelegatingResources(shared, reconnectDelay)
                : DefaultClientResources.builder()
                        .reconnectDelay(reconnectDelay)
                        .build();
        // Closed as the client closes, as Lettuce closes the resources a client created itself.
        Runnable releaseResources =
                shared != null ? () -> {} : () -> BoundedClose.shutdown("client's Redis I/O threads", resources);
        try {
            return create(options, resources, releaseResources);
        } catch (RuntimeException ex) {
            releaseResources.run();
            throw ex;
        }
    }

    private static RedisConnector create(LockClientOptions options, ClientResources resources, Runnable onClose) {
        ConnectionChanges changes = new ConnectionChanges(resources.eventBus());
        Runnable closeAll = () -> {
            changes.close();
            onClose.run();
        };
        if (!options.clusterNodes().isEmpty()) {
            List<RedisURI> seeds = options.clusterNodes().stream()
                    .map(node -> dataNode(uri(node, options), options))
                    .toList();
            RedisClusterClient client = RedisClusterClient.create(resources, seeds);
            ClusterClientOptions.Builder clusterOptions = ClusterClientOptions.builder();
            if (options.sslOptions() != null) {
                clusterOptions.sslOptions(options.sslOptions());
            }
            client.setOptions(clusterOptions
                    .timeoutOptions(TimeoutOptions.enabled(options.commandTimeout()))
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers()
                            // Lettuce's default allows one such refresh per 30 s: one taken while a failed
                            // master is still being replaced would leave its slots unreachable for that long.
                            .adaptiveRefreshTriggersTimeout(options.reconnectDelayMax())
                            .build())
                    .build());
            return new ClusterConnector(client, seeds, options.commandTimeout().toMillis(), changes, closeAll);
        }
        RedisURI target = options.sentinelMaster() != null
                ? sentinelUri(options)
                : dataNode(uri(options.uri(), options), options);
        RedisClient client = RedisClient.create(resources);
        ClientOptions.Builder clientOptions = ClientOptions.builder();
        if (options.sslOptions() != null) {
            clientOptions.sslOptions(options.sslOptions());
        }
        client.setOptions(clientOptions
                .timeoutOptions(TimeoutOptions.enabled(options.commandTimeout()))
                // Never queue a command while disconnected, and fail (never replay) the commands in flight
                // when a connection breaks: a queued or replayed lock script could run long after its caller
                // gave up and leave a hold nobody knows about. A call made while disconnected waits for the
                // reconnect in the engine instead (RedisCalls), within its own deadline, and writes only
                // while its caller still waits.
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        return new StandaloneConnector(client, target, changes, closeAll);
    }

    private static RedisURI uri(String value, LockClientOptions options) {
        RedisURI uri;
        try {
            uri = RedisURI.create(value);
        } catch (RuntimeException ex) {
            // The parser's message repeats the whole input, password included: report only its reason.
            Throwable cause = ex.getCause();
            String reason = cause instanceof java.net.URISyntaxException syntax
                    ? syntax.getReason()
                    : ex.getClass().getSimpleName();
            throw new IllegalArgumentException("Invalid Redis URI '" + redact(value) + "': " + reason);
        }
        uri.setTimeout(options.commandTimeout());
        if (options.clientName() != null) {
            uri.setClientName(options.clientName());
        }
        if (options.ssl()) {
            uri.setSsl(true);
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
        if (options.ssl()) {
            // The top-level URI's TLS setting is the master's; each sentinel's is its own URI's.
            builder.withSsl(true);
        }
        // The top-level URI's credentials and database are those of the master (and replicas);
        // each sentinel keeps the credentials of its own URI.
        return dataNode(builder.build(), options);
    }

    /**
     * Applies the options' credentials and database to a data node, unless its URI carries its own.
     */
    private static RedisURI dataNode(RedisURI uri, LockClientOptions options) {
        String password = options.password();
        if (password != null && !hasPassword(uri)) {
            if (options.username() != null) {
                uri.setAuthentication(options.username(), password.toCharArray());
            } else {
                uri.setAuthentication(password.toCharArray());
            }
        }
        Integer database = options.database();
        if (database != null && uri.getDatabase() == 0) {
            uri.setDatabase(database);
        }
        return uri;
    }

    private static boolean hasPassword(RedisURI uri) {
        // URIs built here from strings always have Lettuce's immediate (static) provider.
        if (uri.getCredentialsProvider()
                instanceof RedisCredentialsProvider.ImmediateRedisCredentialsProvider immediate) {
            RedisCredentials credentials = immediate.resolveCredentialsNow();
            return credentials != null && credentials.hasPassword();
        }
        return uri.getCredentialsProvider() != null;
    }

    static String describe(RedisURI uri) {
        if (uri.getSentinelMasterId() != null) {
            return "sentinel master '" + uri.getSentinelMasterId() + "' via "
                    + uri.getSentinels().stream()
                            .map(s -> s.getHost() + ":" + s.getPort())
                            .toList();
        }
        return (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort() + "/" + uri.getDatabase();
    }

    /**
     * Removes credentials from a URI string for messages.
     * @param value a URI that may contain {@code user:password@}
     * @return the URI without credentials
     */
    public static String redact(String value) {
        return value.replaceAll("//.*@", "//***@");
    }
}
