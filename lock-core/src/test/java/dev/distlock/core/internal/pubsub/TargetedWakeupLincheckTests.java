package dev.distlock.core.internal.pubsub;

import static dev.distlock.core.test.LincheckScenarios.actor;
import static dev.distlock.core.test.LincheckScenarios.race;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Model checks the hand-off of targeted wake-ups (a release that wakes this client alone, on its alias
 * channel) as the channel's last local waiter leaves: every interleaving of the messages, as the
 * subscriptions hand them to the channel's entry, with the waiter's leave must pass at least one of
 * them on to the other clients when the waiter used none, or those clients sleep until their park ends
 * though the lock is free.
 *
 * <p>Only the in-JVM part is driven: the entry's registry is closed before the test starts, so nothing
 * subscribes or connects, and messages are handed to {@link SubscribedChannels#deliver} as the pub/sub
 * connection's listener hands them.
 */
@Tag("model-check")
public class TargetedWakeupLincheckTests {

    private static final String CHANNEL = "channel";
    private static final String ALIAS = "channel:client";

    private final SubscribedChannels channels = new SubscribedChannels();
    private final ChannelWaiters waiters;
    private final AtomicInteger passedOn = new AtomicInteger();
    private final AtomicInteger targeted = new AtomicInteger();
    private final AtomicInteger broadcast = new AtomicInteger();
    private final AtomicBoolean left = new AtomicBoolean();

    public TargetedWakeupLincheckTests() {
        UnlockSubscriptions registry = new UnlockSubscriptions(
                () -> {
                    throw new IllegalStateException("no connection in a model-checking test");
                },
                new ManualTimer(),
                Duration.ofSeconds(1));
        registry.close();
        waiters = new ChannelWaiters(CHANNEL, ALIAS, passedOn::incrementAndGet, null, registry);
        channels.add(waiters);
        // One local caller waits on the channel; it never parks, so it uses no wake-up.
        waiters.joined();
    }

    /** A release picked this client's waiter as the next one. */
    @Operation
    public void targetedWakeup() {
        targeted.incrementAndGet();
        channels.deliver(ALIAS, UnlockSubscriptions.WAKE_ONE);
    }

    /** A release announced to every client. */
    @Operation
    public void broadcastWakeup() {
        broadcast.incrementAndGet();
        channels.deliver(CHANNEL, UnlockSubscriptions.WAKE_ONE);
    }

    /** The local caller's wait ends and it leaves the channel (once). */
    @Operation
    public void leave() {
        if (left.compareAndSet(false, true)) {
            waiters.leave();
        }
    }

    @Validate
    public void aTargetedWakeupNobodyUsedIsPassedOn() {
        if (left.get() && targeted.get() > 0 && passedOn.get() == 0) {
            throw new IllegalStateException(targeted.get()
                    + " targeted wake-up(s) reached the client, its only waiter left without using one, and none"
                    + " was passed on");
        }
        // A wake-up kept unused when the last waiter leaves is passed on whichever way it came: it may
        // have been targeted.
        if (passedOn.get() > targeted.get() + broadcast.get()) {
            throw new IllegalStateException(passedOn.get() + " wake-ups passed on from "
                    + (targeted.get() + broadcast.get()) + " that arrived");
        }
    }

    @Test
    void everyInterleavingPassesOnAnUnusedTargetedWakeup() {
        new ModelCheckingOptions()
                .iterations(20)
                .invocationsPerIteration(50)
                .threads(2)
                .actorsPerThread(2)
                .actorsBefore(1)
                .actorsAfter(1)
                .addCustomScenario(race(List.of(), actor(getClass(), "targetedWakeup"), actor(getClass(), "leave")))
                .check(getClass());
    }
}
