package dev.distlock.core.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.chaos.ChaosChecker.Result;
import dev.distlock.core.chaos.ChaosChecker.Violation;
import dev.distlock.core.chaos.Event.Kind;
import dev.distlock.core.chaos.Event.Phase;
import dev.distlock.core.chaos.Event.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The harness's checker must not pass silently: synthetic histories with a known violation are
 * reported, histories that documented behaviour explains are not, and a real run with a client that
 * skips its locks and its semaphores' permits is caught.
 */
class ChaosCheckerTests {

    private static final long T = 1_700_000_000_000L;

    private final List<Event> events = new ArrayList<>();
    private final List<Fault> faults = new ArrayList<>();
    private final List<LedgerEntry> ledger = new ArrayList<>();
    private final List<ExclusionRegister.Entry> register = new ArrayList<>();

    @Test
    void whenTwoWatchdogHoldsOverlapThenOverlapIsReported() {
        hold("a", 1, "re-0", Kind.REENTRANT, -1, 0, 1000);
        hold("b", 1, "re-0", Kind.REENTRANT, -1, 500, 1500);
        assertThat(kinds(check())).containsExactly("OVERLAP");
    }

    @Test
    void whenHoldsFollowEachOtherThenNothingIsReported() {
        hold("a", 1, "re-0", Kind.REENTRANT, -1, 0, 1000);
        hold("b", 1, "re-0", Kind.REENTRANT, -1, 1000, 1500);
        hold("c", 1, "re-1", Kind.REENTRANT, -1, 0, 1500);
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void whenTwoReadHoldsOverlapThenNothingIsReportedButAWriteHoldIs() {
        hold("a", 1, "rw-0", Kind.READ, -1, 0, 1000);
        hold("b", 1, "rw-0", Kind.READ, -1, 100, 900);
        assertThat(check().violations()).isEmpty();
        hold("c", 1, "rw-0", Kind.WRITE, -1, 200, 300);
        assertThat(kinds(check())).containsExactly("OVERLAP", "OVERLAP");
    }

    @Test
    void whenTheFirstExplicitLeaseHadRunOutThenTheOverlapIsExplained() {
        hold("a", 1, "re-0", Kind.REENTRANT, 500, 0, 3000);
        hold("b", 1, "re-0", Kind.REENTRANT, 500, 600, 1000);
        assertThat(check().violations()).isEmpty();
        hold("c", 1, "re-0", Kind.REENTRANT, 500, 300, 400);
        assertThat(kinds(check())).containsExactly("OVERLAP");
    }

    @Test
    void whenAShortNestedLeaseEndsTheHoldEarlierThenTheOverlapIsExplained() {
        hold("a", 1, "re-0", Kind.REENTRANT, -1, 0, 3000);
        events.add(event(100, "a", 2, 1, Type.ACQ, Phase.INV, Kind.REENTRANT, "re-0", -1, 200, 0));
        events.add(event(110, "a", 2, 1, Type.ACQ, Phase.OK, Kind.REENTRANT, "re-0", -1, 200, 0));
        hold("b", 1, "re-0", Kind.REENTRANT, -1, 1000, 1500);
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void whenTheHolderWasToldOfALostLeaseBeforeTheOverlapThenItIsExplainedButNotWhenToldAfter() {
        hold("a", 1, "re-0", Kind.REENTRANT, -1, 0, 3000);
        hold("b", 1, "re-0", Kind.REENTRANT, -1, 1000, 1500);
        events.add(event(3100, "a", -1, -1, Type.LOST, Phase.OK, Kind.REENTRANT, "re-0", 0, 0, 0));
        assertThat(kinds(check())).as("told only after the overlap").containsExactly("OVERLAP");
        events.add(event(900, "a", -1, -1, Type.LOST, Phase.OK, Kind.REENTRANT, "re-0", 0, 0, 0));
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void whenAWatchdogHoldsReleaseFailedThenTheOverlapIsStillReported() {
        hold("a", 1, "re-0", Kind.REENTRANT, -1, 0, 3000);
        events.removeIf(e -> e.jvm().equals("a") && e.type() == Type.REL && e.phase() == Phase.OK);
        events.add(new Event(
                T + 3050,
                "a",
                1,
                -1,
                Type.REL,
                Phase.ERR,
                Kind.REENTRANT,
                List.of("re-0"),
                "a:1",
                0,
                0,
                0,
                "LockException: Command timed out"));
        hold("b", 1, "re-0", Kind.REENTRANT, -1, 1000, 1500);
        assertThat(kinds(check())).containsExactly("OVERLAP");
    }

    @Test
    void whenAHoldGrantedLateReadItsLeaseThenItIsCheckedForItsWholeLease() {
        // Granted 5 s after its invocation: its watchdog lease counted from the invocation is long over.
        hold("a", 1, "re-0", Kind.REENTRANT, -1, 5000, 7000);
        events.removeIf(e -> e.jvm().equals("a") && e.type() == Type.ACQ && e.phase() == Phase.INV);
        events.add(event(0, "a", 1, -1, Type.ACQ, Phase.INV, Kind.REENTRANT, "re-0", 6000, -1, 1));
        hold("b", 1, "re-0", Kind.REENTRANT, -1, 6000, 6500);
        assertThat(check().violations()).as("nothing proves a's lease at 6000").isEmpty();
        events.add(probe(5010, "a", 1, "re-0", "held 2990"));
        assertThat(kinds(check())).containsExactly("OVERLAP");
    }

    @Test
    void whenTheRegisterSawTwoHoldsInsideThenRegisterIsReportedUnlessTheLeaseHadRunOut() {
        hold("a", 1, "re-0", Kind.REENTRANT, 500, 0, 3000);
        hold("b", 1, "re-0", Kind.REENTRANT, 500, 1000, 1400);
        register.add(new ExclusionRegister.Entry("re-0", T + 10, "a#1", "a:1", "E", 0, List.of()));
        register.add(new ExclusionRegister.Entry("re-0", T + 1010, "b#1", "b:1", "E", 0, List.of("a#1")));
        assertThat(check().violations()).as("a's 500 ms lease had run out").isEmpty();
        register.add(new ExclusionRegister.Entry("re-0", T + 300, "b#1", "b:1", "E", 0, List.of("a#1")));
        assertThat(kinds(check())).containsExactly("REGISTER");
    }

    @Test
    void whenMoreSafePermitHoldsOverlapThanPermitsThenOverPermitsIsReported() {
        // se-0 has 2 permits: two holders at once are fine, a third safe one is not.
        hold("a", 1, "se-0", Kind.SEMAPHORE, -1, 0, 1000);
        hold("b", 1, "se-0", Kind.SEMAPHORE, 2000, 100, 900);
        assertThat(check().violations()).as("two holders of two permits").isEmpty();
        hold("c", 1, "se-0", Kind.SEMAPHORE, -1, 200, 800);
        assertThat(kinds(check())).containsExactly("OVER_PERMITS");
        assertThat(check().violations().get(0).message()).contains("'se-0' (2 permits) held by 3");
    }

    @Test
    void whenAPermitsLeaseCouldHaveRunOutOrDataWasLostThenTheExtraHolderIsExcused() {
        hold("a", 1, "se-0", Kind.SEMAPHORE, 300, 0, 1000);
        hold("b", 1, "se-0", Kind.SEMAPHORE, -1, 100, 900);
        hold("c", 1, "se-0", Kind.SEMAPHORE, -1, 400, 800);
        assertThat(check().violations()).as("a's 300 ms lease had run out").isEmpty();
        // A watchdog permit is safe for one watchdog timeout from its invocation: a renewal may fail.
        hold("d", 1, "se-1", Kind.SEMAPHORE, -1, 0, 5000);
        hold("e", 1, "se-1", Kind.SEMAPHORE, -1, 3500, 4000);
        hold("f", 1, "se-1", Kind.SEMAPHORE, -1, 3500, 4000);
        hold("g", 1, "se-1", Kind.SEMAPHORE, -1, 3500, 4000);
        assertThat(check().violations())
                .as("d's watchdog permit could have lapsed")
                .isEmpty();
        hold("h", 1, "se-1", Kind.SEMAPHORE, -1, 3600, 3900);
        assertThat(kinds(check())).containsExactly("OVER_PERMITS");
        faults.add(new Fault("RESTART", "node", T + 3000, T + 3300, true, 1000));
        assertThat(kinds(check())).as("holds invoked after the restart").containsExactly("OVER_PERMITS");
        faults.add(new Fault("RESTART", "node", T + 3550, T + 3700, true, 1000));
        assertThat(check().violations()).as("a restart loses the semaphore").isEmpty();
    }

    @Test
    void whenAPermitGrantedAfterALongWaitReadItsLeaseThenItIsCheckedForItsWholeLease() {
        hold("a", 1, "se-0", Kind.SEMAPHORE, 2000, 0, 1000);
        hold("b", 1, "se-0", Kind.SEMAPHORE, 2000, 100, 900);
        // Granted 5 s after its invocation: its 1 s lease counted from the invocation is long over.
        hold("c", 1, "se-0", Kind.SEMAPHORE, 1000, 200, 800);
        events.removeIf(e -> e.jvm().equals("c") && e.type() == Type.ACQ && e.phase() == Phase.INV);
        events.add(event(-5000, "c", 1, -1, Type.ACQ, Phase.INV, Kind.SEMAPHORE, "se-0", 6000, 1000, 1));
        assertThat(check().violations()).as("nothing proves c's permit at 200").isEmpty();
        events.add(new Event(
                T + 205,
                "c",
                1,
                -1,
                Type.PROBE,
                Phase.OK,
                Kind.SEMAPHORE,
                List.of("se-0"),
                "c:1",
                0,
                0,
                0,
                "held 990"));
        assertThat(kinds(check())).containsExactly("OVER_PERMITS");
    }

    @Test
    void whenTheRegisterCountsMoreSafeHoldersThanPermitsThenOverPermitsIsReported() {
        hold("a", 1, "se-0", Kind.SEMAPHORE, 300, 0, 3000);
        hold("b", 1, "se-0", Kind.SEMAPHORE, 2000, 0, 3000);
        hold("c", 1, "se-0", Kind.SEMAPHORE, 2000, 1000, 1400);
        register.add(new ExclusionRegister.Entry("se-0", T + 10, "a#1", "a:1", "E", 0, List.of()));
        register.add(new ExclusionRegister.Entry("se-0", T + 10, "b#1", "b:1", "E", 0, List.of()));
        register.add(new ExclusionRegister.Entry("se-0", T + 1010, "c#1", "c:1", "E", 0, List.of("a#1", "b#1")));
        assertThat(check().violations()).as("a's 300 ms lease had run out").isEmpty();
        register.add(new ExclusionRegister.Entry("se-0", T + 200, "c#1", "c:1", "E", 0, List.of("a#1", "b#1")));
        assertThat(kinds(check())).containsExactly("OVER_PERMITS");
        assertThat(check().violations().get(0).message()).contains("3 of these 3 holds safe");
    }

    @Test
    void whenAPermitsReleaseSaysNotTakenThenItIsEarlyLossBeforeItsLeaseAndNothingAfter() {
        hold("a", 1, "se-0", Kind.SEMAPHORE, 3000, 0, 500);
        hold("b", 1, "se-1", Kind.SEMAPHORE, 300, 0, 500);
        events.removeIf(e -> e.type() == Type.REL && e.phase() == Phase.OK);
        for (String jvm : List.of("a", "b")) {
            events.add(new Event(
                    T + 505,
                    jvm,
                    1,
                    -1,
                    Type.REL,
                    Phase.ERR,
                    Kind.SEMAPHORE,
                    List.of(jvm.equals("a") ? "se-0" : "se-1"),
                    jvm + ":1",
                    0,
                    0,
                    0,
                    "java.lang.IllegalArgumentException: Permit '00ff' of semaphore is not taken"));
        }
        assertThat(kinds(check()))
                .as("a's 3 s lease was valid; b's had run out")
                .containsExactly("EARLY_LOSS");
    }

    @Test
    void whenTheHolderFindsItsWatchdogHoldGoneBeforeItsLeaseCouldEndThenEarlyLossIsReported() {
        // The dropped-connection finding: a retry's grant removed by the clean-up of the failed call.
        hold("a", 1, "re-0", Kind.REENTRANT, -1, 0, 500);
        events.add(probe(100, "a", 1, "re-0", "held 2990"));
        events.add(probe(400, "a", 1, "re-0", "gone@" + (T + 402)));
        assertThat(kinds(check())).containsExactly("EARLY_LOSS");
        faults.add(new Fault("RESTART", "node", T + 200, T + 300, true, 1000));
        assertThat(check().violations()).as("a restart loses the key").isEmpty();
    }

    @Test
    void whenAReleaseSaysNotHeldBeforeTheLeaseCouldEndThenEarlyLossIsReported() {
        hold("a", 1, "re-0", Kind.REENTRANT, 3000, 0, 500);
        events.removeIf(e -> e.jvm().equals("a") && e.type() == Type.REL && e.phase() == Phase.OK);
        events.add(new Event(
                T + 510,
                "a",
                1,
                -1,
                Type.REL,
                Phase.ERR,
                Kind.REENTRANT,
                List.of("re-0"),
                "a:1",
                0,
                0,
                0,
                "java.lang.IllegalMonitorStateException: lease expired"));
        assertThat(kinds(check())).containsExactly("EARLY_LOSS");
        faults.add(new Fault("RESTART", "node", T + 100, T + 200, true, 1000));
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void whenAReleaseSaysNotHeldAfterTheLeaseCouldHaveEndedThenNothingIsReported() {
        hold("a", 1, "re-0", Kind.REENTRANT, 300, 0, 200);
        events.removeIf(e -> e.jvm().equals("a") && e.type() == Type.REL && e.phase() == Phase.OK);
        events.add(new Event(
                T + 400,
                "a",
                1,
                -1,
                Type.REL,
                Phase.ERR,
                Kind.REENTRANT,
                List.of("re-0"),
                "a:1",
                0,
                0,
                0,
                "java.lang.IllegalMonitorStateException: lease expired"));
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void whenADataLossFaultHappenedDuringTheHoldThenTheOverlapIsExplained() {
        hold("a", 1, "re-0", Kind.REENTRANT, -1, 0, 3000);
        hold("b", 1, "re-0", Kind.REENTRANT, -1, 1000, 1500);
        faults.add(new Fault("RESTART", "node", T + 800, T + 900, true, 1000));
        assertThat(check().violations()).isEmpty();
        faults.set(0, new Fault("KILL_COMMAND", "node", T + 800, T + 900, false, 1000));
        assertThat(kinds(check())).containsExactly("OVERLAP");
    }

    @Test
    void whenAMultiLockOverlapsAMemberHoldThenOverlapIsReported() {
        hold("a", 1, "re-0,re-1", Kind.MULTI, -1, 0, 1000);
        hold("b", 1, "re-1", Kind.REENTRANT, 2000, 200, 300);
        assertThat(kinds(check())).containsExactly("OVERLAP");
    }

    @Test
    void whenAWaiterTimesOutWhileTheLockIsFreeThenStrandedIsReported() {
        long bound = ChaosRun.PARAMS.livenessBoundMillis();
        hold("a", 1, "fa-0", Kind.FAIR, -1, 0, 1000);
        events.add(event(500, "b", 1, -1, Type.ACQ, Phase.INV, Kind.FAIR, "fa-0", bound + 5000, -1, 0));
        events.add(event(bound + 5500, "b", 1, -1, Type.ACQ, Phase.FAIL, Kind.FAIR, "fa-0", bound + 5000, -1, 0));
        assertThat(kinds(check())).containsExactly("STRANDED", "LATENCY");
        faults.add(new Fault("JVM_PAUSE", "b", T + 3000, T + 4000, false, 3000));
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void whenAWaiterAcquiresLongAfterTheLockBecameFreeThenStrandedIsReported() {
        long bound = ChaosRun.PARAMS.livenessBoundMillis();
        hold("a", 1, "rw-0", Kind.WRITE, -1, 0, 1000);
        events.add(event(500, "b", 1, -1, Type.ACQ, Phase.INV, Kind.READ, "rw-0", -1, -1, 0));
        events.add(event(bound + 1500, "b", 1, -1, Type.ACQ, Phase.OK, Kind.READ, "rw-0", -1, -1, 0));
        assertThat(kinds(check())).containsExactly("STRANDED", "LATENCY");
        events.removeIf(e -> e.jvm().equals("b") && e.phase() == Phase.OK);
        events.add(event(bound + 500, "b", 1, -1, Type.ACQ, Phase.OK, Kind.READ, "rw-0", -1, -1, 0));
        assertThat(kinds(check()))
                .as("within the liveness bound, but far past the hand-off bound")
                .containsExactly("LATENCY");
    }

    @Test
    void whenWaitersStayParkedLongAfterAReleaseThenLatencyIsReported() {
        // The Cluster failover finding: the release was published where no waiter listened, and the
        // waiters got the lock only when their parks, bounded by the lease they saw, ran out.
        long bound = ChaosRun.PARAMS.handOffBoundMillis();
        hold("a", 1, "ln-0", Kind.REENTRANT, 15_000, 0, 1000);
        events.add(event(200, "b", 1, -1, Type.ACQ, Phase.INV, Kind.REENTRANT, "ln-0", 30_000, 15_000, 0));
        events.add(event(bound + 3000, "b", 1, -1, Type.ACQ, Phase.OK, Kind.REENTRANT, "ln-0", 30_000, 15_000, 0));
        events.add(event(bound + 3200, "b", 1, -1, Type.REL, Phase.INV, Kind.REENTRANT, "ln-0", 0, 0, 0));
        events.add(event(bound + 3205, "b", 1, -1, Type.REL, Phase.OK, Kind.REENTRANT, "ln-0", 0, 0, 0));
        assertThat(bound + 3000).isLessThan(ChaosRun.PARAMS.livenessBoundMillis());
        assertThat(kinds(check())).containsExactly("LATENCY");
    }

    @Test
    void whenAFairWaiterIsServedOnlyAtItsLastAttemptThenLatencyIsReported() {
        hold("a", 1, "lf-0", Kind.FAIR, 15_000, 0, 1000);
        events.add(event(300, "b", 1, -1, Type.ACQ, Phase.INV, Kind.FAIR, "lf-0", 9000, 15_000, 0));
        events.add(event(9350, "b", 1, -1, Type.ACQ, Phase.FAIL, Kind.FAIR, "lf-0", 9000, 15_000, 0));
        assertThat(kinds(check())).containsExactly("LATENCY");
    }

    @Test
    void whenTheReleaseIsHandedOnWithinTheBoundThenNothingIsReported() {
        hold("a", 1, "ln-0", Kind.REENTRANT, 15_000, 0, 1000);
        // c was waiting too and got the lock 300 ms after the release; b waits for c's release.
        hold("c", 1, "ln-0", Kind.REENTRANT, 15_000, 1300, 5000);
        events.add(event(100, "b", 1, -1, Type.ACQ, Phase.INV, Kind.REENTRANT, "ln-0", 30_000, 15_000, 0));
        events.add(event(5400, "b", 1, -1, Type.ACQ, Phase.OK, Kind.REENTRANT, "ln-0", 30_000, 15_000, 0));
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void whenTheWaiterIsServedAtOnceOrGaveUpBeforeTheBoundThenNothingIsReported() {
        hold("a", 1, "ln-0", Kind.REENTRANT, 15_000, 0, 1000);
        events.add(event(100, "b", 1, -1, Type.ACQ, Phase.INV, Kind.REENTRANT, "ln-0", 30_000, 15_000, 0));
        events.add(event(1200, "b", 1, -1, Type.ACQ, Phase.OK, Kind.REENTRANT, "ln-0", 30_000, 15_000, 0));
        events.add(event(100, "c", 1, -1, Type.ACQ, Phase.INV, Kind.REENTRANT, "ln-0", 2000, 15_000, 0));
        events.add(event(2100, "c", 1, -1, Type.ACQ, Phase.FAIL, Kind.REENTRANT, "ln-0", 2000, 15_000, 0));
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void whenAnotherReaderStillHoldsThenTheWriterIsNotParkedOnAFreeLock() {
        long bound = ChaosRun.PARAMS.handOffBoundMillis();
        hold("a", 1, "rw-0", Kind.READ, 4000, 0, 1000);
        hold("c", 1, "rw-0", Kind.READ, 15_000, 200, bound + 2000);
        events.add(event(500, "b", 1, -1, Type.ACQ, Phase.INV, Kind.WRITE, "rw-0", 30_000, 4000, 0));
        events.add(event(bound + 2500, "b", 1, -1, Type.ACQ, Phase.OK, Kind.WRITE, "rw-0", 30_000, 4000, 0));
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void whenAnEarlierHoldsReleaseFailedThenItExcusesNoLateHandOffAfterALaterGrant() {
        long bound = ChaosRun.PARAMS.handOffBoundMillis();
        // c's release failed, so its hold may have stayed for its lease; but a was granted after it.
        hold("c", 1, "ln-0", Kind.REENTRANT, 15_000, -3000, -2000);
        events.removeIf(e -> e.jvm().equals("c") && e.type() == Type.REL && e.phase() == Phase.OK);
        events.add(new Event(
                T - 1990,
                "c",
                1,
                -1,
                Type.REL,
                Phase.ERR,
                Kind.REENTRANT,
                List.of("ln-0"),
                "c:1",
                0,
                0,
                0,
                "LockException: Command timed out"));
        hold("a", 1, "ln-0", Kind.REENTRANT, 15_000, 0, 1000);
        events.add(event(200, "b", 1, -1, Type.ACQ, Phase.INV, Kind.REENTRANT, "ln-0", 30_000, 15_000, 0));
        events.add(event(bound + 3000, "b", 1, -1, Type.ACQ, Phase.OK, Kind.REENTRANT, "ln-0", 30_000, 15_000, 0));
        assertThat(kinds(check())).containsExactly("LATENCY");
    }

    @Test
    void whenAFaultWasAroundTheReleaseThenTheLateHandOffIsExcusedButNotLongAfterItHealed() {
        long bound = ChaosRun.PARAMS.handOffBoundMillis();
        hold("a", 1, "ln-0", Kind.REENTRANT, 15_000, 0, 1000);
        events.add(event(200, "b", 1, -1, Type.ACQ, Phase.INV, Kind.REENTRANT, "ln-0", 30_000, 15_000, 0));
        events.add(event(bound + 3000, "b", 1, -1, Type.ACQ, Phase.OK, Kind.REENTRANT, "ln-0", 30_000, 15_000, 0));
        faults.add(new Fault("FAILOVER", "master", T + 500, T + 900, true, 15_000));
        assertThat(check().violations())
                .as("released while the replica was promoted")
                .isEmpty();
        faults.set(0, new Fault("FAILOVER", "master", T - 20_000, T - 9000, true, 15_000));
        assertThat(kinds(check()))
                .as("released 9 s after the promotion: the subscriptions must have followed the slot by then")
                .containsExactly("LATENCY");
    }

    @Test
    void whenAWaiterTimesOutBehindAHolderWhoseReleaseFailedThenNothingIsReported() {
        long bound = ChaosRun.PARAMS.livenessBoundMillis();
        hold("a", 1, "re-0", Kind.REENTRANT, -1, 0, bound);
        events.removeIf(e -> e.jvm().equals("a") && e.type() == Type.REL && e.phase() == Phase.OK);
        events.add(new Event(
                T + bound + 10,
                "a",
                1,
                -1,
                Type.REL,
                Phase.ERR,
                Kind.REENTRANT,
                List.of("re-0"),
                "a:1",
                0,
                0,
                0,
                "LockException: Command timed out"));
        events.add(event(500, "b", 1, -1, Type.ACQ, Phase.INV, Kind.REENTRANT, "re-0", 2 * bound, -1, 0));
        events.add(event(2 * bound + 500, "b", 1, -1, Type.ACQ, Phase.FAIL, Kind.REENTRANT, "re-0", 2 * bound, -1, 0));
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void whenACallFailsLongAfterEveryFaultSettledThenUnavailableIsReported() {
        events.add(event(0, "a", 1, -1, Type.ACQ, Phase.INV, Kind.REENTRANT, "re-0", 0, -1, 0));
        events.add(new Event(
                T + 20_000,
                "a",
                1,
                -1,
                Type.ACQ,
                Phase.ERR,
                Kind.REENTRANT,
                List.of("re-0"),
                "a:1",
                0,
                -1,
                0,
                "LockException: READONLY You can't write against a read only replica."));
        faults.add(new Fault("FAILOVER", "x", T - 10_000, T - 5000, true, 4000));
        assertThat(kinds(check())).containsExactly("UNAVAILABLE");
        faults.add(new Fault("RESTART", "x", T + 19_000, T + 19_100, true, 4000));
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void whenACallSeesTheClientsNotConnectedRefusalThenRejectedIsReportedEvenDuringAFault() {
        events.add(event(0, "a", 1, -1, Type.ACQ, Phase.INV, Kind.REENTRANT, "re-0", 0, -1, 0));
        events.add(failure(
                100,
                "LockException: Cannot acquire lock 're-0' on redis://x:1/0: Currently not connected. Commands are"
                        + " rejected."));
        faults.add(new Fault("OUTAGE", "x", T - 500, T + 1500, true, 10_000));
        assertThat(kinds(check())).containsExactly("REJECTED");
    }

    @Test
    void whenACallGivesUpOnAnUnreachableRedisLongAfterTheOutageThenUnreachableIsReported() {
        String unreachable = "LockException: Cannot acquire lock 're-0' on redis://x:1/0: Redis was unreachable for"
                + " 2000 ms (not connected; the client reconnects by itself, but not within the call's deadline)";
        events.add(event(0, "a", 1, -1, Type.ACQ, Phase.INV, Kind.REENTRANT, "re-0", 0, -1, 0));
        events.add(failure(6000, unreachable));
        // Healed 4 s before the call gave up: the client had time to reconnect, within its grace or not.
        faults.add(new Fault("OUTAGE", "x", T - 1000, T + 2000, true, 10_000));
        assertThat(kinds(check())).containsExactly("UNREACHABLE");
        faults.clear();
        faults.add(new Fault("OUTAGE", "x", T - 1000, T + 4000, true, 10_000));
        assertThat(check().violations()).isEmpty();
    }

    private static Event failure(long at, String detail) {
        return new Event(
                T + at, "a", 1, -1, Type.ACQ, Phase.ERR, Kind.REENTRANT, List.of("re-0"), "a:1", 0, -1, 0, detail);
    }

    @Test
    void whenTwoOwnersWroteWithTheSameTokenThenFencingIsReportedUnlessDataWasLost() {
        hold("a", 1, "fe-0", Kind.FENCED, -1, 0, 100);
        hold("b", 1, "fe-0", Kind.FENCED, -1, 200, 300);
        events.replaceAll(e -> e.type() == Type.ACQ && e.phase() == Phase.OK ? withToken(e, 7) : e);
        ledger.add(new LedgerEntry("fe-0", T + 10, "a:1", 7, "E", FencedLedger.ACCEPT));
        ledger.add(new LedgerEntry("fe-0", T + 210, "b:1", 7, "E", FencedLedger.DUP));
        assertThat(kinds(check())).containsExactly("FENCING");
        faults.add(new Fault("RESTART", "node", T + 120, T + 150, true, 1000));
        assertThat(check().violations()).isEmpty();
    }

    @Test
    void whenTheFirstOwnerDrewTheSameTokenAgainAfterAResetThenTheDuplicateIsStillExcused() {
        hold("a", 1, "fe-0", Kind.FENCED, -1, 0, 100);
        hold("b", 1, "fe-0", Kind.FENCED, -1, 200, 300);
        hold("a", 1, "fe-0", Kind.FENCED, -1, 400, 500);
        events.replaceAll(e -> e.type() == Type.ACQ && e.phase() == Phase.OK ? withToken(e, 7) : e);
        ledger.add(new LedgerEntry("fe-0", T + 10, "a:1", 7, "E", FencedLedger.ACCEPT));
        ledger.add(new LedgerEntry("fe-0", T + 210, "b:1", 7, "E", FencedLedger.DUP));
        faults.add(new Fault("RESTART", "node", T + 120, T + 150, true, 10));
        assertThat(check().violations()).isEmpty();
    }

    @Test
    @Tag("chaos")
    void whenAClientSkipsItsLocksThenTheRunReportsOverlapsDuplicateTokensAndHoldersOverThePermits() throws Exception {
        ChaosRun.Report report =
                ChaosRun.run(new ChaosRun.Settings("standalone", 42, Duration.ofSeconds(10), 2, 3, false, true));
        assertThat(report.violations()).extracting(Violation::kind).contains("OVERLAP", "FENCING", "OVER_PERMITS");
    }

    @Test
    void whenACancelledCallLeftAHoldWithNoFaultAroundThenCancelHoldIsReported() {
        events.add(event(100, "a", 7, -1, Type.CANCEL, Phase.INV, Kind.FAIR, "fa-0", -1, -1, 0));
        events.add(event(4000, "a", 7, -1, Type.CANCEL, Phase.ERR, Kind.FAIR, "fa-0", -1, -1, 0));
        events.add(event(200, "b", 3, -1, Type.CANCEL, Phase.INV, Kind.READ, "rw-0", 2000, -1, 0));
        events.add(event(3000, "b", 3, -1, Type.CANCEL, Phase.OK, Kind.READ, "rw-0", 2000, -1, 0));
        assertThat(kinds(check())).containsExactly("CANCEL_HOLD");
        faults.add(new Fault("REDIS_PAUSE", "6379", T + 1000, T + 2000, false, 500));
        assertThat(check().violations()).as("a fault may delay the give-back").isEmpty();
    }

    private Result check() {
        List<Event> sorted = new ArrayList<>(events);
        sorted.sort((x, y) -> Long.compare(x.time(), y.time()));
        return ChaosChecker.check(sorted, faults, ledger, register, ChaosRun.PARAMS);
    }

    private static List<String> kinds(Result result) {
        return result.violations().stream().map(Violation::kind).toList();
    }

    private void hold(String jvm, long owner, String locks, Kind kind, long lease, long from, long to) {
        long op = events.stream()
                        .filter(e -> e.jvm().equals(jvm))
                        .mapToLong(Event::op)
                        .max()
                        .orElse(0)
                + 1;
        events.add(event(from - 5, jvm, op, -1, Type.ACQ, Phase.INV, kind, locks, 1000, lease, owner));
        events.add(event(from, jvm, op, -1, Type.ACQ, Phase.OK, kind, locks, 1000, lease, owner));
        events.add(event(to, jvm, op, -1, Type.REL, Phase.INV, kind, locks, 0, 0, owner));
        events.add(event(to + 5, jvm, op, -1, Type.REL, Phase.OK, kind, locks, 0, 0, owner));
    }

    private static Event event(
            long at,
            String jvm,
            long op,
            long parent,
            Type type,
            Phase phase,
            Kind kind,
            String locks,
            long wait,
            long lease,
            long owner) {
        return new Event(
                T + at,
                jvm,
                op,
                parent,
                type,
                phase,
                kind,
                List.of(locks.split(",")),
                jvm + ":" + Math.max(1, owner),
                wait,
                lease,
                0,
                "-");
    }

    private static Event probe(long at, String jvm, long op, String lock, String detail) {
        return new Event(
                T + at, jvm, op, -1, Type.PROBE, Phase.OK, Kind.REENTRANT, List.of(lock), jvm + ":1", 0, 0, 0, detail);
    }

    private static Event withToken(Event e, long token) {
        return new Event(
                e.time(),
                e.jvm(),
                e.op(),
                e.parent(),
                e.type(),
                e.phase(),
                e.kind(),
                e.locks(),
                e.owner(),
                e.waitMillis(),
                e.leaseMillis(),
                token,
                e.detail());
    }
}
