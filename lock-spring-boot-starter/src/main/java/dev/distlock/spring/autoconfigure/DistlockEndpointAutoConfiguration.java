package dev.distlock.spring.autoconfigure;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.distlock.core.LockClient;
import dev.distlock.spring.internal.ActiveHolds;
import dev.distlock.spring.internal.DistlockEndpoint;

/**
 * The {@code distlock} Actuator endpoint, when exposed.
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean({ LockClient.class, ActiveHolds.class })
@ConditionalOnAvailableEndpoint(DistlockEndpoint.class)
public final class DistlockEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DistlockEndpoint distlockEndpoint(LockClient client, ActiveHolds holds, DistlockProperties properties) {
        return new DistlockEndpoint(client, holds, properties.getEndpoint().isForceUnlockEnabled());
    }
}
