package dev.distlock.spring.internal.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.LockType;
import dev.distlock.spring.internal.hold.LockObserver;
import dev.distlock.spring.internal.hold.LockRequest;
import dev.distlock.spring.internal.observation.LockEventLog.LockEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class PermitEventObserverTests {

    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);

    private final LockEventLog log = new LockEventLog(
            16, Duration.ofSeconds(30), Clock.fixed(Instant.ofEpochMilli(1_000_000), ZoneOffset.UTC), nanos::get);

    private final PermitEventObserver observer = new PermitEventObserver(log);

    private static LockRequest request(LockType type) {
        return new LockRequest(
                "partner",
                List.of("partner:api"),
                type,
                false,
                Duration.ofSeconds(1),
                Duration.ofSeconds(30),
                "PartnerClient.call()",
                Duration.ZERO,
                type == LockType.SEMAPHORE ? 3 : 0);
    }

    @Test
    void whenAPermitIsTakenAndGivenBackThenBothAreRecordedAsSemaphoreEventsTimedWhenTheReleaseWasSent() {
        LockObserver.Acquiring acquiring = observer.acquireStarted(request(LockType.SEMAPHORE), 7);
        nanos.addAndGet(2_000_000);
        LockObserver.Holding holding = acquiring.acquired();
        nanos.addAndGet(10_000_000);
        holding.releasing();
        nanos.addAndGet(3_000_000);
        holding.released();

        assertThat(log.since(0))
                .extracting(LockEvent::type, LockEvent::lockName, LockEvent::lockType, LockEvent::ownerId)
                .containsExactly(
                        Tuple.tuple(LockEvent.Type.ACQUIRED, "partner:api", "semaphore", 7L),
                        Tuple.tuple(LockEvent.Type.RELEASED, "partner:api", "semaphore", 7L));
        assertThat(log.since(0).get(0).waitMillis()).isEqualTo(2.0);
        assertThat(log.since(0)).extracting(log::epochMillis).containsExactly(1_000_002.0, 1_000_012.0);
    }

    @Test
    void whenAPermitIsLostThenItEndsLostAndItsLaterReleaseIsNotRecorded() {
        LockObserver.Holding holding =
                observer.acquireStarted(request(LockType.SEMAPHORE), 7).acquired();
        holding.leaseLost();
        holding.released();

        assertThat(log.since(0))
                .extracting(LockEvent::type)
                .containsExactly(LockEvent.Type.ACQUIRED, LockEvent.Type.LEASE_LOST);
    }

    @Test
    void whenNoPermitComesThenTheWaitIsRecordedAsTimedOut() {
        LockObserver.Acquiring acquiring = observer.acquireStarted(request(LockType.SEMAPHORE), 8);
        nanos.addAndGet(40_000_000);
        acquiring.ended(LockObserver.Outcome.TIMEOUT, null);
        acquiring.ended(LockObserver.Outcome.ERROR, new IllegalStateException("down"));

        assertThat(log.since(0))
                .extracting(LockEvent::type, LockEvent::waitMillis)
                .containsExactly(Tuple.tuple(LockEvent.Type.TIMED_OUT, 40.0));
    }

    @Test
    void whenALockIsTakenThenNothingIsRecordedHereAsCoresListenerRecordsIt() {
        observer.acquireStarted(request(LockType.REENTRANT), 7).acquired().released();

        assertThat(log.since(0)).isEmpty();
    }
}
