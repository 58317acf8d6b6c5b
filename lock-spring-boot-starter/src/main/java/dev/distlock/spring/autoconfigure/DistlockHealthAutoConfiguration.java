package dev.distlock.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

import dev.distlock.core.LockClient;
import dev.distlock.spring.internal.DistlockHealthIndicator;
import dev.distlock.spring.internal.RedLockClients;

/**
 * The {@code distlock} health indicator: PING to each configured Redis.
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(LockClient.class)
@ConditionalOnEnabledHealthIndicator("distlock")
public final class DistlockHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "distlockHealthIndicator")
    DistlockHealthIndicator distlockHealthIndicator(LockClient client,
            org.springframework.beans.factory.ObjectProvider<RedLockClients> redLockClients) {
        RedLockClients red = redLockClients.getIfAvailable();
        return new DistlockHealthIndicator(client, red != null ? red.clients() : java.util.List.of());
    }
}
