package dev.distlock.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Convention of the {@code distlock.acquire} observation, from the call to the lock acquired or
 * given up. Declare a bean of this type to replace {@link DefaultLockAcquireObservationConvention}.
 */
public interface LockAcquireObservationConvention extends ObservationConvention<LockObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LockObservationContext;
    }
}
