package dev.distlock.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Reads {@code spring.data.redis.*} from the environment, for when spring-data-redis is not on the
 * classpath and so Spring Boot defines no {@code DataRedisConnectionDetails}: an application that
 * set Boot's Redis properties must not silently get {@code localhost:6379}. The rules are Boot's:
 * {@code url} overrides {@code host}, {@code port}, {@code username}, {@code password} and
 * {@code database}; Sentinel wins over Cluster, and both over a single server.
 */
final class SpringDataRedisSettings {

    static final String PREFIX = "spring.data.redis";

    private SpringDataRedisSettings() {}

    /**
     * Binds {@code spring.data.redis.*} into Distlock's shape.
     * @param environment the environment
     * @return the settings, or {@code null} when no connection property is set there
     */
    static DistlockProperties.@Nullable Redis bind(Environment environment) {
        Binder binder = Binder.get(environment);
        DistlockProperties.Redis redis =
                binder.bind(PREFIX, DistlockProperties.Redis.class).orElseGet(DistlockProperties.Redis::new);
        String host = binder.bind(PREFIX + ".host", String.class).orElse(null);
        Integer port = binder.bind(PREFIX + ".port", Integer.class).orElse(null);
        if (!isSet(redis, host, port)) {
            return null;
        }
        if (StringUtils.hasText(redis.getUrl())) {
            redis.setUsername(null);
            redis.setPassword(null);
            redis.setDatabase(null);
        } else {
            String h = StringUtils.hasText(host) ? host.trim() : "localhost";
            String bracketed = h.contains(":") && !h.startsWith("[") ? "[" + h + "]" : h;
            redis.setUrl("redis://" + bracketed + ":" + (port != null ? port : 6379));
        }
        return redis;
    }

    private static boolean isSet(DistlockProperties.Redis redis, @Nullable String host, @Nullable Integer port) {
        return StringUtils.hasText(redis.getUrl())
                || StringUtils.hasText(host)
                || port != null
                || redis.getUsername() != null
                || redis.getPassword() != null
                || redis.getDatabase() != null
                || redis.getSsl().getEnabled() != null
                || StringUtils.hasText(redis.getSsl().getBundle())
                || PropertiesDistlockConnectionDetails.isConnectionSet(redis);
    }
}
