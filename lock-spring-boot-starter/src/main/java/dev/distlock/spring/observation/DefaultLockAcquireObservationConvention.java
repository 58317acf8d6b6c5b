package dev.distlock.spring.observation;

import io.micrometer.common.KeyValues;

/**
 * Default {@link LockAcquireObservationConvention}: name {@code distlock.acquire}, contextual name
 * {@code distlock acquire <lock.name>}, low-cardinality keys {@code lock.name}, {@code lock.type}
 * and {@code outcome}, high-cardinality keys {@code lock.key} and {@code lock.owner}.
 */
public class DefaultLockAcquireObservationConvention implements LockAcquireObservationConvention {

    /** The observation name, also the name of the timer the default meter handler records. */
    public static final String NAME = "distlock.acquire";

    /** Shared instance. */
    public static final DefaultLockAcquireObservationConvention INSTANCE =
            new DefaultLockAcquireObservationConvention();

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(LockObservationContext context) {
        return "distlock acquire " + context.getLockName();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
        LockObservationContext.Outcome outcome = context.getOutcome();
        return KeyValues.of(
                LockObservationKeys.LOCK_NAME,
                context.getLockName(),
                LockObservationKeys.LOCK_TYPE,
                context.getLockType().kind().kindName(),
                // An observation stopped without an outcome was abandoned by an unexpected failure.
                LockObservationKeys.OUTCOME,
                outcome == null ? "error" : outcome.value());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LockObservationContext context) {
        return KeyValues.of(
                LockObservationKeys.LOCK_KEY, context.getKey(), LockObservationKeys.LOCK_OWNER, context.getOwner());
    }
}
