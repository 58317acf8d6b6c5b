package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.spring.integration.DistlockLockRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Integration's lock registry on Distlock, when Spring Integration is on the class path and
 * the application defines no {@link LockRegistry}: a {@link DistlockLockRegistry} configured from
 * {@code distlock.integration.*}.
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnProperty(prefix = "distlock", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnProperty(prefix = "distlock.integration", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnSingleCandidate(LockClient.class)
@EnableConfigurationProperties(DistlockIntegrationProperties.class)
public final class DistlockIntegrationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    DistlockLockRegistry distlockLockRegistry(LockClient client, DistlockIntegrationProperties properties) {
        DistlockLockRegistry registry = new DistlockLockRegistry(client);
        registry.setLeaseTime(properties.getLeaseTime());
        registry.setFenced(properties.isFenced());
        return registry;
    }
}
