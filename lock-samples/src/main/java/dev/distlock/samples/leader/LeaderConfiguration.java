package dev.distlock.samples.leader;

import dev.distlock.spring.integration.DistlockLockRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Leader election for {@link LeaderTask}: the initiator starts with the application and gives up
 * leadership (unlocking its role's lock) when the application stops.
 */
@Configuration(proxyBeanMethods = false)
class LeaderConfiguration {

    @Bean
    LockRegistryLeaderInitiator leaderInitiator(DistlockLockRegistry locks, LeaderTask task) {
        return new LockRegistryLeaderInitiator(locks, task);
    }
}
