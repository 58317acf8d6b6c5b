package dev.distlock.test.internal;

import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/**
 * Points Spring Boot's own Redis connection at the test Redis; loaded only with spring-boot-data-redis
 * on the class path.
 */
final class DataRedisDetails {

    private DataRedisDetails() {}

    static void register(BeanDefinitionRegistry registry, String host, int port) {
        RootBeanDefinition definition = new RootBeanDefinition(
                DataRedisConnectionDetails.class, () -> new TestRedisDataRedisConnectionDetails(host, port));
        definition.setPrimary(true);
        registry.registerBeanDefinition("distlockTestRedisDataRedisConnectionDetails", definition);
    }

    private record TestRedisDataRedisConnectionDetails(String host, int port) implements DataRedisConnectionDetails {

        @Override
        public Standalone getStandalone() {
            return Standalone.of(host, port);
        }
    }
}
