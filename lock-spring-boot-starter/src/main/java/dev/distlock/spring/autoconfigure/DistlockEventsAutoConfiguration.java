package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.internal.hold.LockObserver;
import dev.distlock.spring.internal.observation.LockEventLog;
import dev.distlock.spring.internal.observation.PermitEventObserver;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The log of recent lock events, with {@code distlock.events.enabled=true}. It is a
 * {@link dev.distlock.core.LockListener} bean, so the auto-configured client reports to it like to
 * any application listener; off by default, so that an application that never draws a timeline
 * keeps no events. Semaphore permits, which the client's listeners do not hear, reach the log through
 * an observer of the starter's holds.
 */
@AutoConfiguration(before = DistlockAutoConfiguration.class)
@ConditionalOnProperty(prefix = "distlock", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnProperty(prefix = "distlock.events", name = "enabled", havingValue = "true")
@EnableConfigurationProperties(DistlockEventsProperties.class)
public final class DistlockEventsAutoConfiguration {

    @Bean
    LockEventLog distlockEventLog(DistlockEventsProperties properties) {
        return new LockEventLog(properties.getCapacity(), properties.getRetention());
    }

    @Bean
    LockObserver distlockPermitEventObserver(LockEventLog distlockEventLog) {
        return new PermitEventObserver(distlockEventLog);
    }
}
