package dev.distlock.spring.internal.observation;

import dev.distlock.spring.LockType;
import dev.distlock.spring.internal.hold.LockObserver;
import dev.distlock.spring.internal.hold.LockRequest;
import dev.distlock.spring.internal.observation.LockEventLog.LockEvent;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Records the permits of semaphores taken through {@code @DistributedSemaphore} and
 * {@code LockTemplate.withPermit} in the {@link LockEventLog}, with the lock type {@code semaphore}, so
 * that a timeline draws them beside the locks. Core's listener, which feeds the log with locks, does not
 * hear permits; locks are left to it here, so that none is recorded twice.
 *
 * <p>A permit's release is timed when it was sent ({@link Holding#releasing()}), as a lock's is, so that
 * a timeline never draws more holders than the semaphore has permits. A permit whose lease was lost
 * ends with {@code LEASE_LOST} and no {@code RELEASED}.
 */
public final class PermitEventObserver implements LockObserver {

    private static final String SEMAPHORE = LockType.SEMAPHORE.kind().kindName();

    private final LockEventLog log;

    /**
     * Creates an observer.
     * @param log where the events go
     */
    public PermitEventObserver(LockEventLog log) {
        this.log = log;
    }

    @Override
    public Acquiring acquireStarted(LockRequest request, long ownerId) {
        if (request.type() != LockType.SEMAPHORE) {
            return Acquiring.NO_OP;
        }
        String name = request.names().get(0);
        long started = log.nanoTime();
        return new Acquiring() {
            @Override
            public Holding acquired() {
                long now = log.nanoTime();
                log.record(LockEvent.Type.ACQUIRED, name, SEMAPHORE, ownerId, now - started, now);
                return new PermitHolding(name, ownerId);
            }

            @Override
            public void ended(Outcome outcome, @Nullable Throwable error) {
                if (outcome == Outcome.TIMEOUT) {
                    long now = log.nanoTime();
                    log.record(LockEvent.Type.TIMED_OUT, name, SEMAPHORE, ownerId, now - started, now);
                }
            }
        };
    }

    /** One permit held: its end is recorded once, as a loss or as a release. */
    private final class PermitHolding implements Holding {

        private final String name;
        private final long ownerId;
        private final AtomicBoolean ended = new AtomicBoolean();
        private volatile long releasingAt = -1;

        PermitHolding(String name, long ownerId) {
            this.name = name;
            this.ownerId = ownerId;
        }

        @Override
        public void leaseLost() {
            if (ended.compareAndSet(false, true)) {
                log.record(LockEvent.Type.LEASE_LOST, name, SEMAPHORE, ownerId, -1, log.nanoTime());
            }
        }

        @Override
        public void releasing() {
            releasingAt = log.nanoTime();
        }

        @Override
        public void released() {
            if (ended.compareAndSet(false, true)) {
                long at = releasingAt;
                log.record(LockEvent.Type.RELEASED, name, SEMAPHORE, ownerId, -1, at >= 0 ? at : log.nanoTime());
            }
        }
    }
}
