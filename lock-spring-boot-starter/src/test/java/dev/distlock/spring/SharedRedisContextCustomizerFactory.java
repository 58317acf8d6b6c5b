package dev.distlock.spring;

import dev.distlock.core.test.RedisServers;
import java.util.List;
import java.util.Map;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/** Points {@code distlock.redis.url} of a {@link DistlockRedisTest} context at the fixture's shared Redis. */
final class SharedRedisContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(
            Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        return new SharedRedisUrl(RedisServers.shared().uri());
    }

    /**
     * The URL is part of the context cache key: should the shared server have been restarted on
     * another port, a cached context would point at the old one.
     */
    private record SharedRedisUrl(String uri) implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            // First, like @DynamicPropertySource: the test's Redis wins over any configured one.
            context.getEnvironment()
                    .getPropertySources()
                    .addFirst(new MapPropertySource("distlockSharedRedis", Map.of("distlock.redis.url", uri)));
        }
    }
}
