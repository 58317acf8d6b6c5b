package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.spring.shedlock.DistlockLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * ShedLock's lock provider on Distlock, when ShedLock is on the class path and the application
 * defines no {@link LockProvider}: a {@link DistlockLockProvider} configured from
 * {@code distlock.shedlock.*}. {@code @EnableSchedulerLock} stays the application's to declare.
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnClass(LockProvider.class)
@ConditionalOnProperty(prefix = "distlock", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnProperty(prefix = "distlock.shedlock", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnSingleCandidate(LockClient.class)
@EnableConfigurationProperties(DistlockShedLockProperties.class)
public final class DistlockShedLockAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    DistlockLockProvider distlockLockProvider(LockClient client, DistlockShedLockProperties properties) {
        return switch (properties.getLayout()) {
            case DISTLOCK -> new DistlockLockProvider(client);
            case SHEDLOCK_REDIS ->
                DistlockLockProvider.compatibleWithShedLockRedis(client, properties.getEnvironment());
            case BOTH -> DistlockLockProvider.transitionalFromShedLockRedis(client, properties.getEnvironment());
        };
    }
}
