package dev.distlock.spring.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

import dev.distlock.core.LockClientOptions;

/**
 * Decides where the lock client connects: {@code distlock.redis.*} when set, else Spring Boot's
 * Redis connection ({@code DataRedisConnectionDetails} bean or {@code spring.data.redis.*}), else
 * {@code redis://localhost:6379}.
 */
final class RedisConnectionResolver {

    /** Where the connection came from, for logs and tests. */
    enum Source { DISTLOCK, SPRING_DATA_REDIS, DEFAULT }

    private RedisConnectionResolver() {
    }

    static boolean isDistlockRedisSet(DistlockProperties.Redis redis) {
        return StringUtils.hasText(redis.getUrl()) || StringUtils.hasText(redis.getSentinel().getMaster())
                || !redis.getCluster().getNodes().isEmpty();
    }

    static Source apply(LockClientOptions.Builder builder, DistlockProperties.Redis redis,
            @Nullable SpringRedisConnection springRedis, Environment environment) {
        if (isDistlockRedisSet(redis)) {
            applyDistlock(builder, redis);
            return Source.DISTLOCK;
        }
        SpringRedisConnection spring = springRedis != null ? springRedis : fromSpringDataRedisProperties(environment);
        if (spring != null) {
            spring.apply(builder);
            return Source.SPRING_DATA_REDIS;
        }
        builder.uri(withOverrides("redis://localhost:6379", redis));
        return Source.DEFAULT;
    }

    private static void applyDistlock(LockClientOptions.Builder builder, DistlockProperties.Redis redis) {
        String master = redis.getSentinel().getMaster();
        if (StringUtils.hasText(master)) {
            builder.sentinel(master, nodeUris(redis.getSentinel().getNodes(), redis.getSentinel().getUsername(),
                    redis.getSentinel().getPassword(), false));
            dataNodes(builder, redis.getUsername(), redis.getPassword(), redis.getDatabase());
        }
        else if (!redis.getCluster().getNodes().isEmpty()) {
            builder.cluster(nodeUris(redis.getCluster().getNodes(), redis.getUsername(), redis.getPassword(),
                    Boolean.TRUE.equals(redis.getSsl())));
        }
        else {
            builder.uri(withOverrides(redis.getUrl(), redis));
        }
    }

    /** Credentials and database of the Sentinel-monitored master, which its node URIs cannot carry. */
    static void dataNodes(LockClientOptions.Builder builder, @Nullable String username, @Nullable String password,
            @Nullable Integer database) {
        if (password != null) {
            builder.credentials(username, password);
        }
        if (database != null) {
            builder.database(database);
        }
    }

    /** Applies username, password, database and ssl overrides to a URL. */
    static String withOverrides(@Nullable String url, DistlockProperties.Redis redis) {
        URI uri;
        try {
            uri = new URI(url);
        }
        catch (URISyntaxException ex) {
            throw new IllegalArgumentException("Invalid distlock.redis.url: " + ex.getReason(), ex);
        }
        boolean ssl = redis.getSsl() != null ? redis.getSsl() : "rediss".equalsIgnoreCase(uri.getScheme());
        String userInfo = uri.getRawUserInfo();
        if (redis.getUsername() != null || redis.getPassword() != null) {
            userInfo = userInfo(redis.getUsername(), redis.getPassword());
        }
        String path = uri.getRawPath();
        if (redis.getDatabase() != null) {
            path = "/" + redis.getDatabase();
        }
        return build(ssl, userInfo, uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 6379,
                path != null && path.length() > 1 ? path : "");
    }

    static String build(boolean ssl, @Nullable String userInfo, String host, int port, String path) {
        String hostPart = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return (ssl ? "rediss://" : "redis://") + (userInfo != null ? userInfo + "@" : "") + hostPart + ":" + port + path;
    }

    static @Nullable String userInfo(@Nullable String username, @Nullable String password) {
        if (username == null && password == null) {
            return null;
        }
        String user = username != null ? encode(username) : "";
        return password != null ? user + ":" + encode(password) : user;
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static String[] nodeUris(List<String> nodes, @Nullable String username, @Nullable String password, boolean ssl) {
        String userInfo = userInfo(username, password);
        return nodes.stream().map(String::trim).map(node -> {
            if (node.contains("://")) {
                return node;
            }
            int colon = node.lastIndexOf(':');
            String host = colon > 0 ? node.substring(0, colon) : node;
            int port = colon > 0 ? Integer.parseInt(node.substring(colon + 1)) : 6379;
            return build(ssl, userInfo, host, port, "");
        }).toArray(String[]::new);
    }

    private static @Nullable SpringRedisConnection fromSpringDataRedisProperties(Environment environment) {
        Binder binder = Binder.get(environment);
        String url = binder.bind("spring.data.redis.url", String.class).orElse(null);
        String host = binder.bind("spring.data.redis.host", String.class).orElse(null);
        Integer port = binder.bind("spring.data.redis.port", Integer.class).orElse(null);
        String master = binder.bind("spring.data.redis.sentinel.master", String.class).orElse(null);
        String sentinelUsername = binder.bind("spring.data.redis.sentinel.username", String.class).orElse(null);
        String sentinelPassword = binder.bind("spring.data.redis.sentinel.password", String.class).orElse(null);
        List<String> sentinelNodes = binder.bind("spring.data.redis.sentinel.nodes", Bindable.listOf(String.class)).orElse(List.of());
        List<String> clusterNodes = binder.bind("spring.data.redis.cluster.nodes", Bindable.listOf(String.class)).orElse(List.of());
        if (url == null && host == null && port == null && master == null && clusterNodes.isEmpty()) {
            return null;
        }
        String username = binder.bind("spring.data.redis.username", String.class).orElse(null);
        String password = binder.bind("spring.data.redis.password", String.class).orElse(null);
        int database = binder.bind("spring.data.redis.database", Integer.class).orElse(0);
        boolean ssl = binder.bind("spring.data.redis.ssl.enabled", Boolean.class).orElse(false);
        return builder -> {
            if (master != null) {
                builder.sentinel(master, nodeUris(sentinelNodes, sentinelUsername, sentinelPassword, false));
                dataNodes(builder, username, password, database);
            }
            else if (!clusterNodes.isEmpty()) {
                builder.cluster(nodeUris(clusterNodes, username, password, ssl));
            }
            else if (url != null) {
                DistlockProperties.Redis overrides = new DistlockProperties.Redis();
                overrides.setUsername(username);
                overrides.setPassword(password);
                builder.uri(withOverrides(url, overrides));
            }
            else {
                builder.uri(build(ssl, userInfo(username, password), host != null ? host : "localhost",
                        port != null ? port : 6379, database != 0 ? "/" + database : ""));
            }
        };
    }

    /** A Redis connection taken from Spring Boot's configuration. */
    @FunctionalInterface
    interface SpringRedisConnection {

        void apply(LockClientOptions.Builder builder);
    }
}
