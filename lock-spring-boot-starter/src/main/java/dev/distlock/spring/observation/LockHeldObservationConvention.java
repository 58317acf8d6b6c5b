package dev.distlock.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Convention of the {@code distlock.held} observation, from the lock acquired to released. Declare
 * a bean of this type to replace {@link DefaultLockHeldObservationConvention}.
 */
public interface LockHeldObservationConvention extends ObservationConvention<LockObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LockObservationContext;
    }
}
