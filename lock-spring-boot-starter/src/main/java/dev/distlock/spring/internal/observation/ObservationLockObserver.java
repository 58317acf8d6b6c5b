package dev.distlock.spring.internal.observation;

import dev.distlock.spring.internal.hold.LockObserver;
import dev.distlock.spring.internal.hold.LockRequest;
import dev.distlock.spring.observation.DefaultLockAcquireObservationConvention;
import dev.distlock.spring.observation.DefaultLockHeldObservationConvention;
import dev.distlock.spring.observation.LockAcquireObservationConvention;
import dev.distlock.spring.observation.LockHeldObservationConvention;
import dev.distlock.spring.observation.LockObservationContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Reports acquisitions and holds as the {@code distlock.acquire} and {@code distlock.held}
 * Micrometer observations. Both are children of the observation current on the caller's thread.
 */
public final class ObservationLockObserver implements LockObserver {

    /**
     * Name of the event that marks the moment a hold's lease was lost on the {@code distlock.held}
     * observation. Meant for traces: {@link ObservationEventMeters} keeps the default meter handler
     * from counting it as a meter of its own.
     */
    static final String LEASE_LOST_EVENT = "distlock.lease.lost";

    private static final Observation.Event LEASE_LOST = Observation.Event.of(LEASE_LOST_EVENT, "lease lost");

    private final ObservationRegistry registry;
    private final @Nullable LockAcquireObservationConvention acquireConvention;
    private final @Nullable LockHeldObservationConvention heldConvention;

    /**
     * Creates the observer.
     * @param registry the observation registry
     * @param acquireConvention custom convention of {@code distlock.acquire}, or {@code null} for the default
     * @param heldConvention custom convention of {@code distlock.held}, or {@code null} for the default
     */
    public ObservationLockObserver(
            ObservationRegistry registry,
            @Nullable LockAcquireObservationConvention acquireConvention,
            @Nullable LockHeldObservationConvention heldConvention) {
        this.registry = registry;
        this.acquireConvention = acquireConvention;
        this.heldConvention = heldConvention;
    }

    @Override
    public Runnable propagating(Runnable task) {
        Observation current = registry.getCurrentObservation();
        if (current == null) {
            return task;
        }
        return () -> {
            try (Observation.Scope scope = current.openScope()) {
                task.run();
            }
        };
    }

    @Override
    public Acquiring acquireStarted(LockRequest request, long ownerId) {
        String key = String.join(",", request.names());
        String owner = Long.toString(ownerId);
        // The parent is taken now, on the caller's thread; the hold may end on another thread.
        Observation parent = registry.getCurrentObservation();
        LockObservationContext acquireContext =
                new LockObservationContext(request.template(), request.type(), key, owner);
        Observation acquire = Observation.createNotStarted(
                        acquireConvention,
                        DefaultLockAcquireObservationConvention.INSTANCE,
                        () -> acquireContext,
                        registry)
                .start();
        return new Acquiring() {
            @Override
            public Scope openScope() {
                Observation.Scope scope = acquire.openScope();
                return scope::close;
            }

            @Override
            public Holding acquired() {
                acquireContext.setOutcome(LockObservationContext.Outcome.ACQUIRED);
                acquire.stop();
                LockObservationContext heldContext =
                        new LockObservationContext(request.template(), request.type(), key, owner);
                heldContext.setOutcome(LockObservationContext.Outcome.ACQUIRED);
                Observation held = Observation.createNotStarted(
                                heldConvention,
                                DefaultLockHeldObservationConvention.INSTANCE,
                                () -> heldContext,
                                registry)
                        .parentObservation(parent)
                        .start();
                AtomicBoolean stopped = new AtomicBoolean();
                return new Holding() {
                    @Override
                    public void leaseLost() {
                        held.event(LEASE_LOST);
                    }

                    @Override
                    public void released() {
                        if (stopped.compareAndSet(false, true)) {
                            held.stop();
                        }
                    }
                };
            }

            @Override
            public void ended(Outcome outcome, @Nullable Throwable error) {
                acquireContext.setOutcome(
                        outcome == Outcome.TIMEOUT
                                ? LockObservationContext.Outcome.TIMEOUT
                                : LockObservationContext.Outcome.ERROR);
                if (error != null) {
                    acquire.error(error);
                }
                acquire.stop();
            }
        };
    }
}
