package dev.distlock.spring.internal.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.distlock.spring.internal.observation.LockEventLog.LockEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LockEventLogTests {

    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);

    private final LockEventLog log = new LockEventLog(
            4, Duration.ofSeconds(30), Clock.fixed(Instant.ofEpochMilli(1_000_000), ZoneOffset.UTC), nanos::get);

    @Test
    void whenEventsOfEveryKindArriveThenEachIsRecordedWithOwnerThreadAndWait() {
        log.onAcquired("orders", 7, 2_500_000);
        nanos.addAndGet(10_000_000);
        log.onReleased("orders", 7);
        log.onTimeout("orders", 8, 40_000_000);
        log.onLeaseLost("orders", 9);

        assertThat(log.since(0))
                .extracting(LockEvent::sequence, LockEvent::type, LockEvent::ownerId, LockEvent::waitMillis)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1L, LockEvent.Type.ACQUIRED, 7L, 2.5),
                        org.assertj.core.groups.Tuple.tuple(2L, LockEvent.Type.RELEASED, 7L, null),
                        org.assertj.core.groups.Tuple.tuple(3L, LockEvent.Type.TIMED_OUT, 8L, 40.0),
                        org.assertj.core.groups.Tuple.tuple(4L, LockEvent.Type.LEASE_LOST, 9L, null));
        assertThat(log.since(0).get(0).thread())
                .isEqualTo(Thread.currentThread().getName());
        assertThat(log.since(0).get(3).thread())
                .as("a lease loss is reported on the watchdog's thread")
                .isNull();
    }

    @Test
    void whenEventsAreRecordedThenTheyAreTimedByTheMonotonicClockAnchoredToTheWallClock() {
        nanos.addAndGet(1_500_000);
        log.onAcquired("orders", 1, 0);
        nanos.addAndGet(250_000);
        log.onReleased("orders", 1);
        assertThat(log.since(0)).extracting(log::epochMillis).containsExactly(1_000_001.5, 1_000_001.75);
        nanos.addAndGet(1_000_000);
        assertThat(log.nowEpochMillis()).isEqualTo(1_000_002.75);
    }

    @Test
    void whenTheUnlockBeganEarlierOnThisThreadThenTheReleaseIsTimedFromThere() {
        log.onAcquired("orders", 1, 0);
        nanos.addAndGet(1_000_000);
        log.onReleasing("orders", 1);
        nanos.addAndGet(3_000_000);
        log.onReleased("orders", 1);
        log.onReleasing("orders", 2);
        nanos.addAndGet(1_000_000);
        log.onLeaseLost("orders", 2);
        nanos.addAndGet(1_000_000);
        log.onReleased("orders", 3);
        assertThat(log.since(0))
                .extracting(log::epochMillis)
                .containsExactly(1_000_000.0, 1_000_001.0, 1_000_004.0, 1_000_006.0);
    }

    @Test
    void whenMoreEventsThanCapacityThenTheOldestAreOverwritten() {
        for (int i = 1; i <= 10; i++) {
            log.onAcquired("lock-" + i, i, 0);
        }
        assertThat(log.since(0))
                .extracting(LockEvent::lockName)
                .containsExactly("lock-7", "lock-8", "lock-9", "lock-10");
        assertThat(log.lastSequence()).isEqualTo(10);
    }

    @Test
    void whenASequenceIsGivenThenOnlyLaterEventsAreReturned() {
        log.onAcquired("a", 1, 0);
        log.onReleased("a", 1);
        log.onAcquired("b", 1, 0);
        assertThat(log.since(2)).extracting(LockEvent::lockName).containsExactly("b");
        assertThat(log.since(3)).isEmpty();
    }

    @Test
    void whenEventsAreOlderThanTheRetentionThenTheyAreNoLongerReported() {
        log.onAcquired("old", 1, 0);
        nanos.addAndGet(Duration.ofSeconds(20).toNanos());
        log.onAcquired("young", 2, 0);
        nanos.addAndGet(Duration.ofSeconds(15).toNanos());
        assertThat(log.since(0)).extracting(LockEvent::lockName).containsExactly("young");
    }

    @Test
    void whenCapacityOrRetentionIsNotPositiveThenItIsRejectedByName() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new LockEventLog(0, Duration.ofSeconds(1)))
                .withMessage("'capacity' must be positive, was 0");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new LockEventLog(10, Duration.ZERO))
                .withMessage("'retention' must be positive, was PT0S");
    }
}
