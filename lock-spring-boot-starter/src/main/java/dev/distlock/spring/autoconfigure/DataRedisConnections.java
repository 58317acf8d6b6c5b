package dev.distlock.spring.autoconfigure;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/**
 * Adapts Spring Boot's {@link DataRedisConnectionDetails} (from {@code spring.data.redis.*} or a
 * {@code @ServiceConnection} container). Only loaded when spring-boot-data-redis is present.
 */
final class DataRedisConnections {

    private DataRedisConnections() {
    }

    static RedisConnectionResolver.SpringRedisConnection adapt(DataRedisConnectionDetails details) {
        return builder -> {
            boolean ssl = details.getSslBundle() != null;
            if (details.getSentinel() != null) {
                DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
                String sentinelUserInfo = RedisConnectionResolver.userInfo(sentinel.getUsername(), sentinel.getPassword());
                builder.sentinel(sentinel.getMaster(), sentinel.getNodes().stream()
                        .map(node -> RedisConnectionResolver.build(false, sentinelUserInfo, node.host(), node.port(), ""))
                        .toArray(String[]::new));
                RedisConnectionResolver.dataNodes(builder, details.getUsername(), details.getPassword(), sentinel.getDatabase());
            }
            else if (details.getCluster() != null) {
                String userInfo = RedisConnectionResolver.userInfo(details.getUsername(), details.getPassword());
                builder.cluster(details.getCluster().getNodes().stream()
                        .map(node -> RedisConnectionResolver.build(ssl, userInfo, node.host(), node.port(), ""))
                        .toArray(String[]::new));
            }
            else if (details.getStandalone() != null) {
                DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
                builder.uri(RedisConnectionResolver.build(ssl,
                        RedisConnectionResolver.userInfo(details.getUsername(), details.getPassword()),
                        standalone.getHost(), standalone.getPort(),
                        standalone.getDatabase() != 0 ? "/" + standalone.getDatabase() : ""));
            }
        };
    }
}
