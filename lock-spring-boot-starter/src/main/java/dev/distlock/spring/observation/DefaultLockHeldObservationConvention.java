package dev.distlock.spring.observation;

import io.micrometer.common.KeyValues;

/**
 * Default {@link LockHeldObservationConvention}: name {@code distlock.held}, contextual name
 * {@code distlock held <lock.name>}, low-cardinality keys {@code lock.name} and {@code lock.type},
 * high-cardinality keys {@code lock.key} and {@code lock.owner}.
 */
public class DefaultLockHeldObservationConvention implements LockHeldObservationConvention {

    /**
     * The observation name, also the name of the timer (and, with the suffix {@code .active}, of the
     * long-task timer) the default meter handler records.
     */
    public static final String NAME = "distlock.held";

    /** Shared instance. */
    public static final DefaultLockHeldObservationConvention INSTANCE = new DefaultLockHeldObservationConvention();

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(LockObservationContext context) {
        return "distlock held " + context.getLockName();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
        return KeyValues.of(
                LockObservationKeys.LOCK_NAME,
                context.getLockName(),
                LockObservationKeys.LOCK_TYPE,
                context.getLockType().kind().kindName());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LockObservationContext context) {
        return KeyValues.of(
                LockObservationKeys.LOCK_KEY, context.getKey(), LockObservationKeys.LOCK_OWNER, context.getOwner());
    }
}
