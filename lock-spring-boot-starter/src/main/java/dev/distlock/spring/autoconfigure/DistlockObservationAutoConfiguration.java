package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.internal.observation.ObservationLockObserver;
import dev.distlock.spring.observation.LockAcquireObservationConvention;
import dev.distlock.spring.observation.LockHeldObservationConvention;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Micrometer Observations of Distlock locks ({@code distlock.acquire}, {@code distlock.held}) when
 * an {@link ObservationRegistry} bean is present, and Lettuce {@link ClientResources} shared with
 * Spring Boot's Redis client when there is such a bean, so that Lettuce's command tracing and
 * metrics cover the lock scripts too.
 */
@AutoConfiguration(
        before = DistlockMetricsAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
            "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration"
        })
@ConditionalOnProperty(prefix = "distlock", name = "enabled", havingValue = "true", matchIfMissing = true)
public final class DistlockObservationAutoConfiguration {

    /** Observations, when Micrometer Observation and a registry bean are present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    @ConditionalOnBean(ObservationRegistry.class)
    static class ObservationConfiguration {

        @Bean
        ObservationLockObserver distlockObservationObserver(
                ObservationRegistry registry,
                ObjectProvider<LockAcquireObservationConvention> acquireConvention,
                ObjectProvider<LockHeldObservationConvention> heldConvention) {
            return new ObservationLockObserver(registry, acquireConvention.getIfUnique(), heldConvention.getIfUnique());
        }
    }

    /** Shares Spring Boot's Lettuce resources with the lock clients. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(ClientResources.class)
    static class ClientResourcesConfiguration {

        @Bean
        @Order(Ordered.HIGHEST_PRECEDENCE)
        DistlockClientCustomizer distlockClientResourcesCustomizer(ClientResources clientResources) {
            // First, so that a user's customizer can still choose other resources.
            return builder -> builder.clientResources(clientResources);
        }
    }
}
