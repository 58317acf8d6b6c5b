package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.internal.hold.LockObserver;
import dev.distlock.spring.internal.observation.LockNameTagLimit;
import dev.distlock.spring.internal.observation.MicrometerLockObserver;
import dev.distlock.spring.internal.observation.ObservationEventMeters;
import dev.distlock.spring.internal.observation.ObservationLockObserver;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer metrics of Distlock locks, when Micrometer and a {@link MeterRegistry} are present.
 */
@AutoConfiguration(
        after = DistlockAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
        })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(prefix = "distlock", name = "enabled", havingValue = "true", matchIfMissing = true)
public final class DistlockMetricsAutoConfiguration {

    @Bean
    LockObserver distlockMicrometerObserver(
            MeterRegistry registry, ObjectProvider<ObservationLockObserver> observations) {
        // With observations, the default meter handler records the distlock.acquire and distlock.held timers.
        return new MicrometerLockObserver(registry, observations.getIfAvailable() == null);
    }

    /** The lease-lost event of distlock.held is for traces; distlock.lease.lost counts the losses. */
    @Bean
    ObservationEventMeters distlockObservationEventMeters() {
        return new ObservationEventMeters();
    }

    @Bean
    LockNameTagLimit distlockLockNameTagLimit(DistlockProperties properties) {
        return new LockNameTagLimit(properties.getMetrics().getMaxNames());
    }
}
