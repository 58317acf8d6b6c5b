package dev.distlock.core.internal.engine;

import static dev.distlock.core.test.LincheckScenarios.actor;
import static dev.distlock.core.test.LincheckScenarios.race;

import dev.distlock.core.internal.pubsub.ChannelWaiters;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.BooleanGen;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Model checks one lock's local waiter line as calls of two owners arrive, the head ends (acquired or
 * gave up), and waits in the line end, in every interleaving. A caller's wait in the line ends as
 * {@code LocalLinePlace} ends it: it leaves when its wait ended first, re-enters past the line when its
 * owner took the lock, and heads the line otherwise.
 *
 * <p>The steps span the line and its callers' futures, so the model is what must hold at every point
 * and after each interleaving: at most one call heads the line and tries in Redis; a call of an owner
 * that took the lock never waits behind the line for it; and once every step ended, no caller waits in
 * the line without a head to hand it on (it would wait until its timeout with the lock free), and the
 * line holds exactly the callers still waiting.
 */
@Tag("model-check")
@Param(name = "owner", gen = IntGen.class, conf = "1:2")
public class LocalWaiterLinesLincheckTests {

    private static final String KEY = "lock";

    private final LocalWaiterLines lines = new LocalWaiterLines();
    /** Calls heading the line now, not yet ended. */
    private final ConcurrentLinkedQueue<Call> heads = new ConcurrentLinkedQueue<>();
    /** Calls that took the head's place and have not yet ended, counted as each finds out. */
    private final AtomicInteger headsAtOnce = new AtomicInteger();
    /** Places in the line of calls that were queued. */
    private final ConcurrentLinkedQueue<LocalWaiterLines.Queued> places = new ConcurrentLinkedQueue<>();
    /** Owners that took the lock and have not yet released it, as bits. */
    private final AtomicInteger holding = new AtomicInteger();
    /** Failures seen inside a step that ran on another call's thread (a turn completed there). */
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

    /** A call of an owner that wants the lock. */
    private final class Call implements LocalWaiterLines.Waiter {

        private final long owner;

        Call(long owner) {
            this.owner = owner;
        }

        @Override
        public @Nullable ChannelWaiters joinForTurn() {
            return null;
        }

        @Override
        public long ownerId() {
            return owner;
        }

        @Override
        public boolean ownerHolds() {
            return (holding.get() & bit(owner)) != 0;
        }
    }

    /**
     * A call arrives: it heads the line and tries, or waits in it; a call whose owner holds the lock
     * re-enters at once instead, as {@code waitsInLocalLine} decides.
     */
    @Operation
    public void arrive(@Param(name = "owner") int owner) {
        if ((holding.get() & bit(owner)) != 0) {
            return;
        }
        Call call = new Call(owner);
        LocalWaiterLines.Queued place = lines.enter(KEY, call);
        if (place == null) {
            becameHead(call);
            return;
        }
        places.add(place);
        // As LocalLinePlace.waitForTurn ends the wait.
        place.turn.whenComplete((channel, failure) -> {
            boolean left = place.leftWaiting();
            if (left || place.reenters()) {
                lines.remove(KEY, place);
                return;
            }
            becameHead(call);
        });
    }

    /** The call heading the line ends, having taken the lock or not, as LocalLinePlace.callEnded ends it. */
    @Operation
    public void headEnds(@Param(gen = BooleanGen.class) boolean acquired) {
        Call head = heads.poll();
        if (head == null) {
            return;
        }
        headsAtOnce.decrementAndGet();
        if (acquired) {
            holding.accumulateAndGet(bit(head.owner), (bits, owner) -> bits | owner);
            lines.ownerHolds(KEY, head.owner);
        }
        lines.headDone(KEY, head, null, false, -1);
    }

    /** The owner that holds the lock releases it. */
    @Operation
    public void release(@Param(name = "owner") int owner) {
        holding.accumulateAndGet(bit(owner), (bits, released) -> bits & ~released);
    }

    /** The wait of a caller in the line ends (its time is up, it was cancelled), as its timer ends it. */
    @Operation
    public void waitEnds() {
        places.stream().anyMatch(place -> place.turn.complete(null));
    }

    private void becameHead(Call call) {
        heads.add(call);
        if (headsAtOnce.incrementAndGet() > 1) {
            violations.add("two calls head the line at once");
        }
    }

    @Validate
    public void everyWaitingCallerHasAHead() {
        if (!violations.isEmpty()) {
            throw new IllegalStateException(violations.peek());
        }
        long waiting = places.stream().filter(place -> !place.turn.isDone()).count();
        if (waiting > 0 && heads.isEmpty()) {
            throw new IllegalStateException(waiting + " caller(s) wait in the line and none heads it");
        }
        if (waiting != lines.queued()) {
            throw new IllegalStateException(
                    waiting + " caller(s) still wait for their turn, but the line holds " + lines.queued());
        }
        places.stream()
                .filter(place -> !place.turn.isDone() && (holding.get() & bit(place.call.ownerId())) != 0)
                .findAny()
                .ifPresent(place -> {
                    throw new IllegalStateException("a call of owner " + place.call.ownerId()
                            + " waits in the line while its owner holds the lock");
                });
        if (heads.isEmpty() && lines.hasQueued(KEY)) {
            throw new IllegalStateException("the line outlived its last call");
        }
    }

    @Test
    void everyInterleavingHandsTheLineOn() {
        new ModelCheckingOptions()
                .iterations(20)
                .invocationsPerIteration(40)
                .threads(2)
                .actorsPerThread(2)
                .actorsBefore(2)
                .actorsAfter(1)
                .addCustomScenario(ownerTakesTheLockAsItsNextCallArrives())
                .check(getClass());
    }

    /**
     * Owner 1 heads the line with owner 2 queued behind; owner 1 takes the lock as another of its calls
     * arrives: that call must not wait behind owner 2, who waits for owner 1's release.
     */
    private static ExecutionScenario ownerTakesTheLockAsItsNextCallArrives() {
        Class<?> test = LocalWaiterLinesLincheckTests.class;
        return race(
                List.of(actor(test, "arrive", 1), actor(test, "arrive", 2)),
                actor(test, "headEnds", true),
                actor(test, "arrive", 1));
    }

    private static int bit(long owner) {
        return 1 << owner;
    }
}
