package dev.distlock.spring.internal.actuator;

import dev.distlock.spring.internal.observation.LockEventLog;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The recent lock events part of the {@code distlock} endpoint's report, for drawing timelines: a
 * client polls with the {@code lastSequence} it has seen and receives only newer events.
 *
 * @param recording whether events are recorded ({@code distlock.events.enabled})
 * @param capacity most events kept, {@code 0} when not recording
 * @param retentionMillis how long an event is reported, {@code 0} when not recording
 * @param lastSequence sequence number of the newest event, to pass as {@code eventsAfter} next time
 * @param time now by the clock the events' times come from, in milliseconds since the epoch, so
 *        that a client on another machine can place them relative to its own clock
 * @param events events newer than the requested sequence, oldest first
 */
public record LockEventsReport(
        boolean recording, int capacity, long retentionMillis, long lastSequence, double time, List<Event> events) {

    static LockEventsReport of(@Nullable LockEventLog log, long after) {
        if (log == null) {
            return new LockEventsReport(false, 0, 0, 0, System.currentTimeMillis(), List.of());
        }
        List<LockEventLog.LockEvent> recorded = log.since(after);
        // What the poller passes next time: the last event it got, never a number still being written.
        long last =
                recorded.isEmpty() ? after : recorded.get(recorded.size() - 1).sequence();
        List<Event> events = recorded.stream()
                .map(e -> new Event(
                        e.sequence(),
                        e.type().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                        e.lockName(),
                        e.lockType(),
                        e.ownerId(),
                        e.thread(),
                        log.epochMillis(e),
                        e.waitMillis()))
                .toList();
        return new LockEventsReport(
                true, log.capacity(), log.retention().toMillis(), last, log.nowEpochMillis(), events);
    }

    /**
     * One event.
     * @param sequence position in the log, from 1
     * @param type {@code acquired}, {@code released}, {@code lease-lost} or {@code timed-out}
     * @param name lock name
     * @param lockType {@code semaphore} for a semaphore permit's event; {@code null} (left out) for a lock's
     * @param ownerId thread id or explicit owner id; pairs an {@code acquired} with its end
     * @param thread thread that caused the event, {@code null} for a lease loss
     * @param time when, in milliseconds since the epoch with sub-millisecond precision
     * @param waitMillis how long the acquisition waited, for {@code acquired} and {@code timed-out}
     */
    public record Event(
            long sequence,
            String type,
            String name,
            @Nullable String lockType,
            long ownerId,
            @Nullable String thread,
            double time,
            @Nullable Double waitMillis) {}
}
