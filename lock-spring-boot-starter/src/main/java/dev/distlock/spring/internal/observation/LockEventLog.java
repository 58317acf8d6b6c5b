package dev.distlock.spring.internal.observation;

import dev.distlock.core.LockListener;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The recent lock events of this instance, for the {@code distlock} endpoint's timeline: holds
 * taken, released and lost, and acquisitions that gave up, with their lock, owner, thread and time.
 *
 * <p>Bounded twice: a ring of {@code capacity} slots that the newest event overwrites, and a
 * retention after which an event is no longer reported. Recording is one atomic increment and one
 * array write on the lock's own thread, with no lock and no allocation beyond the event itself.
 * Times come from a monotonic clock anchored once to the wall clock, so that events of one
 * instance are ordered as they happened even if the wall clock is stepped.
 *
 * <p>A release is timed when the owner's unlock began ({@link #onReleasing}), not when Redis
 * answered: the next owner can hear its acquisition before the releasing thread hears the reply,
 * and a timeline must not draw two holders of an exclusive lock at once.
 *
 * <p>Core's listener hears locks only. The permits of semaphores taken through the annotation and the
 * template are recorded by {@link PermitEventObserver} through {@link #record}, with the lock type
 * {@code semaphore}; events heard as a listener carry no lock type.
 */
public final class LockEventLog implements LockListener {

    private final AtomicReferenceArray<@Nullable LockEvent> ring;
    private final AtomicLong sequence = new AtomicLong();
    private final long retentionNanos;
    private final LongSupplier nanoTime;
    private final long anchorNanos;
    private final double anchorEpochMillis;
    // Set and cleared on the unlocking thread, which hears onReleasing and then onReleased or onLeaseLost.
    private final ThreadLocal<@Nullable Releasing> releasing = new ThreadLocal<>();

    /**
     * Creates a log.
     * @param capacity most events kept
     * @param retention how long an event is reported
     */
    public LockEventLog(int capacity, Duration retention) {
        this(capacity, retention, Clock.systemUTC(), System::nanoTime);
    }

    LockEventLog(int capacity, Duration retention, Clock clock, LongSupplier nanoTime) {
        if (capacity < 1) {
            throw new IllegalArgumentException("'capacity' must be positive, was " + capacity);
        }
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("'retention' must be positive, was " + retention);
        }
        this.ring = new AtomicReferenceArray<>(capacity);
        this.retentionNanos = retention.toNanos();
        this.nanoTime = nanoTime;
        this.anchorNanos = nanoTime.getAsLong();
        this.anchorEpochMillis = clock.millis();
    }

    @Override
    public void onAcquired(String lockName, long ownerId, long waitNanos) {
        record(LockEvent.Type.ACQUIRED, lockName, ownerId, waitNanos);
    }

    @Override
    public void onTimeout(String lockName, long ownerId, long waitNanos) {
        record(LockEvent.Type.TIMED_OUT, lockName, ownerId, waitNanos);
    }

    @Override
    public void onReleasing(String lockName, long ownerId) {
        releasing.set(new Releasing(lockName, ownerId, nanoTime.getAsLong()));
    }

    @Override
    public void onReleased(String lockName, long ownerId) {
        record(LockEvent.Type.RELEASED, lockName, ownerId, -1, releaseStart(lockName, ownerId));
    }

    @Override
    public void onLeaseLost(String lockName, long ownerId) {
        record(LockEvent.Type.LEASE_LOST, lockName, ownerId, -1, releaseStart(lockName, ownerId));
    }

    private long releaseStart(String lockName, long ownerId) {
        Releasing started = releasing.get();
        if (started == null
                || started.ownerId() != ownerId
                || !started.lockName().equals(lockName)) {
            return nanoTime.getAsLong();
        }
        releasing.remove();
        return started.nanos();
    }

    private void record(LockEvent.Type type, String lockName, long ownerId, long waitNanos) {
        record(type, lockName, ownerId, waitNanos, nanoTime.getAsLong());
    }

    private void record(LockEvent.Type type, String lockName, long ownerId, long waitNanos, long now) {
        record(type, lockName, null, ownerId, waitNanos, now);
    }

    /**
     * Records an event that core's listener does not report, such as a semaphore permit's.
     * @param type what happened
     * @param lockName lock or semaphore name (without key prefix)
     * @param lockType kind of lock, as the {@code lock.type} meter tag names it ({@code semaphore})
     * @param ownerId owner id; pairs an {@code ACQUIRED} with its end
     * @param waitNanos how long the acquisition waited, or -1 when not an acquisition
     * @param nanos when it happened, by {@link #nanoTime()}
     */
    public void record(
            LockEvent.Type type, String lockName, @Nullable String lockType, long ownerId, long waitNanos, long nanos) {
        long seq = sequence.incrementAndGet();
        // Lease losses are reported on the watchdog's thread: it names nobody, the owner id does.
        String thread = type == LockEvent.Type.LEASE_LOST
                ? null
                : Thread.currentThread().getName();
        ring.set(
                (int) ((seq - 1) % ring.length()),
                new LockEvent(
                        seq,
                        type,
                        lockName,
                        lockType,
                        ownerId,
                        thread,
                        nanos,
                        waitNanos >= 0 ? waitNanos / 1e6 : null));
    }

    /**
     * Returns the events newer than a sequence number and younger than the retention, oldest first.
     * @param after sequence number already seen ({@code 0} for all)
     * @return the events
     */
    public List<LockEvent> since(long after) {
        long oldest = nanoTime.getAsLong() - retentionNanos;
        long last = sequence.get();
        List<LockEvent> events = new ArrayList<>();
        for (long seq = Math.max(after + 1, last - ring.length() + 1); seq <= last; seq++) {
            LockEvent event = ring.get((int) ((seq - 1) % ring.length()));
            if (event == null || event.sequence() < seq) {
                // Its recorder has taken the number but not written the slot yet: stop here, so that a
                // poller that continues after the last event it got does not skip this one.
                break;
            }
            // A larger number means the ring has lapped this one: it is gone.
            if (event.sequence() == seq && event.nanos() - oldest >= 0) {
                events.add(event);
            }
        }
        return events;
    }

    /**
     * Returns the sequence number of the newest event.
     * @return it, {@code 0} before the first event
     */
    public long lastSequence() {
        return sequence.get();
    }

    /**
     * Returns the number of events kept at most.
     * @return the ring's size
     */
    public int capacity() {
        return ring.length();
    }

    /**
     * Returns how long an event is reported.
     * @return the retention
     */
    public Duration retention() {
        return Duration.ofNanos(retentionNanos);
    }

    /**
     * Returns now by the monotonic clock that times the events, for {@link #record}.
     * @return nanoseconds, comparable only with other readings of this log's clock
     */
    public long nanoTime() {
        return nanoTime.getAsLong();
    }

    /**
     * Returns now by the clock that times the events.
     * @return milliseconds since the epoch, with sub-millisecond precision
     */
    public double nowEpochMillis() {
        return anchorEpochMillis + (nanoTime.getAsLong() - anchorNanos) / 1e6;
    }

    /**
     * Converts an event's monotonic time to milliseconds since the epoch.
     * @param event the event
     * @return its time, with sub-millisecond precision
     */
    public double epochMillis(LockEvent event) {
        return anchorEpochMillis + (event.nanos() - anchorNanos) / 1e6;
    }

    private record Releasing(String lockName, long ownerId, long nanos) {}

    /**
     * One lock event.
     * @param sequence position in the log, from 1
     * @param type what happened
     * @param lockName lock name (without key prefix)
     * @param lockType kind of lock as the {@code lock.type} meter tag names it, {@code semaphore} for a
     *     permit; {@code null} for events core's listener reported, which do not say
     * @param ownerId thread id or explicit owner id
     * @param thread thread that caused the event; {@code null} for a lease loss
     * @param nanos monotonic time; for a release or a loss found at unlock, when the unlock began
     * @param waitMillis how long the acquisition waited, for {@code ACQUIRED} and {@code TIMED_OUT}
     */
    public record LockEvent(
            long sequence,
            Type type,
            String lockName,
            @Nullable String lockType,
            long ownerId,
            @Nullable String thread,
            long nanos,
            @Nullable Double waitMillis) {

        /** What happened. */
        public enum Type {

            /** A hold began (reentrant acquisitions too). */
            ACQUIRED,

            /** The owner's last unlock released the hold. */
            RELEASED,

            /** The hold was lost while its owner believed it held it. */
            LEASE_LOST,

            /** An acquisition gave up because its wait was spent. */
            TIMED_OUT
        }
    }
}
