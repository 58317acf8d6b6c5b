package dev.distlock.spring.observation;

import io.micrometer.common.KeyValues;

/**
 * Default {@link LockAcquireObservationConvention}: name {@code distlock.acquire}, contextual name
 * {@code distlock acquire <lock.name>}, low-cardinality keys {@code lock.name}, {@code lock.type}
 * and, once the acquisition has ended, {@code outcome}; high-cardinality keys {@code lock.key} and
 * {@code lock.owner}. The {@code distlock.acquire.active} long-task timer the default meter handler
 * starts with the observation is therefore tagged {@code lock.name} and {@code lock.type} only.
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
        KeyValues lockTags = KeyValues.of(
                LockObservationKeys.LOCK_NAME,
                context.getLockName(),
                LockObservationKeys.LOCK_TYPE,
                context.getLockType().kind().kindName());
        LockObservationContext.Outcome outcome = context.getOutcome();
        // No outcome while the acquisition runs: the key values read at the start tag the
        // long-task timer of callers waiting now, which must not look like failures.
        return outcome == null ? lockTags : lockTags.and(LockObservationKeys.OUTCOME, outcome.value());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LockObservationContext context) {
        return KeyValues.of(
                LockObservationKeys.LOCK_KEY, context.getKey(), LockObservationKeys.LOCK_OWNER, context.getOwner());
    }
}
