package dev.distlock.core.internal.pubsub;

import static dev.distlock.core.test.LincheckScenarios.actor;
import static dev.distlock.core.test.LincheckScenarios.race;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Model checks the wake-up permits of one unlock channel with two local waiters: callers park,
 * wake-ups (a release's message to one or to all; a wake-up passed on is one to one) arrive, and parks time out, in every
 * interleaving. Which timeouts still found their park waiting must be what some sequential order of
 * the same calls gives, Lincheck running the class itself one call after another as the model; and
 * after each interleaving no waiter may be left parked while a wake-up waits unused (a wake-up lost
 * between a waiter's check for a kept one and its park), no more wake-ups may have been used or kept
 * than arrived, and no more kept than callers wait on the channel.
 *
 * <p>What each park got is checked only then: a wake-up completes its waiter outside the channel's
 * monitor, so an observer in between sees the waiter taken but not yet woken, which no sequential
 * order shows and no caller can act on.
 *
 * <p>Only the in-JVM part is driven: the channel's registry is closed before the test starts, so
 * nothing subscribes or connects.
 */
@Tag("model-check")
public class ChannelWaitersLincheckTests {

    private static final long LONG_PARK_MILLIS = 60_000;
    private static final int CALLERS = 2;

    private final ManualTimer timer = new ManualTimer();
    private final ChannelWaiters waiters;
    private final ConcurrentLinkedQueue<CompletableFuture<Boolean>> parks = new ConcurrentLinkedQueue<>();
    private final AtomicInteger wakeups = new AtomicInteger();

    public ChannelWaitersLincheckTests() {
        UnlockSubscriptions registry = new UnlockSubscriptions(
                () -> {
                    throw new IllegalStateException("no connection in a model-checking test");
                },
                timer,
                Duration.ofSeconds(1));
        registry.close();
        waiters = new ChannelWaiters("channel", null, null, null, registry);
        // Two callers wait on the channel: a wake-up that finds nobody parked is kept for one of them.
        for (int i = 0; i < CALLERS; i++) {
            waiters.joined();
        }
    }

    /** A caller parks: it takes a kept wake-up at once, or waits for one. */
    @Operation
    public void park() {
        parks.add(waiters.park(LONG_PARK_MILLIS, timer));
        noWaiterParkedWhileAWakeupWaits();
    }

    /** A release's message that wakes one waiter. */
    @Operation
    public void wakeOne() {
        wakeups.incrementAndGet();
        waiters.wakeOne();
        noWaiterParkedWhileAWakeupWaits();
    }

    /** A read-write lock's release, which wakes every waiter: as many wake-ups as callers wait on the channel. */
    @Operation
    public void wakeAll() {
        wakeups.addAndGet(CALLERS);
        waiters.wakeAll();
        noWaiterParkedWhileAWakeupWaits();
    }

    /** @return whether a park was still waiting and its timeout ended it */
    @Operation
    public boolean timeOut() {
        boolean ended = parks.stream().anyMatch(park -> park.complete(false));
        noWaiterParkedWhileAWakeupWaits();
        return ended;
    }

    /**
     * Checked after every step, under the channel's monitor, so that a state no step may leave is seen
     * even when a later step would mend it: a waiter parked while a wake-up waits unused is a lost
     * wake-up (its caller sleeps until the next release or its timeout).
     */
    private void noWaiterParkedWhileAWakeupWaits() {
        synchronized (waiters) {
            if (waiters.parked() > 0 && waiters.permits() > 0) {
                throw new IllegalStateException(
                        waiters.parked() + " waiter(s) parked while " + waiters.permits() + " wake-up(s) wait unused");
            }
        }
    }

    @Validate
    public void noWakeupLostOrUsedTwice() {
        long woken = parks.stream().filter(park -> park.getNow(false)).count();
        if (woken + waiters.permits() > wakeups.get()) {
            throw new IllegalStateException(woken + " parks woken and " + waiters.permits() + " wake-up(s) kept, from "
                    + wakeups.get() + " wake-up(s)");
        }
        noWaiterParkedWhileAWakeupWaits();
        if (waiters.permits() > waiters.waiting()) {
            throw new IllegalStateException(
                    waiters.permits() + " wake-ups kept for " + waiters.waiting() + " waiters on the channel");
        }
    }

    @Test
    void everyInterleavingIsLinearizable() {
        new ModelCheckingOptions()
                .iterations(20)
                .invocationsPerIteration(50)
                .threads(2)
                .actorsPerThread(2)
                .actorsBefore(1)
                .actorsAfter(1)
                // The race for a wake-up kept for a waiter about to park, which random scenarios seldom pair.
                .addCustomScenario(race(List.of(), actor(getClass(), "wakeOne"), actor(getClass(), "park")))
                .check(getClass());
    }
}
