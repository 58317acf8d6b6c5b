package dev.distlock.core.internal.composite;

import dev.distlock.core.LockException;
import dev.distlock.core.internal.kind.SameServerMembers;
import dev.distlock.core.internal.kind.SameServerMembers.Refusal;
import dev.distlock.core.internal.pubsub.ChannelWaiters;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a multi lock whose members one script per server takes ({@link
 * SameServerMembers}): a round sends one all-or-nothing attempt per server (per cluster slot), all
 * at once. When every group is granted, the multi lock is held. When a group is refused, the
 * groups granted in that round are released at once, so the caller holds nothing while it waits
 * and two callers can never deadlock, whatever their members. A waiting caller listens where the
 * release of the member that refused it is announced (that member's channel, as its own waiters
 * do) and tries again when it is woken or when that member's lease ends, within its wait.
 */
public final class BatchedMultiAcquisition extends CompositeAcquisition {

    /** Pause before trying again after an attempt got no answer, as a single lock's waiter parks then. */
    private static final long FAILED_ATTEMPT_PAUSE_MILLIS = 1000;

    private final List<SameServerMembers> groups;
    private final long waitMillis;
    private final long leaseMillis;
    private final long ownerId;
    private final long start = System.nanoTime();
    private final long deadline;

    /** Groups this round holds, until the caller has them or they are released; guarded by {@code this}. */
    private List<SameServerMembers> taken = new ArrayList<>();
    /** The park (or subscription) in progress, cancelled when the caller gives up; guarded by {@code this}. */
    private @Nullable List<? extends CompletableFuture<?>> pending;
    /** The channel of the member that refused the last attempt, and which member that is; guarded by {@code this}. */
    private @Nullable ChannelWaiters channel;

    private @Nullable Blocker listeningTo;
    /** Whether the last park ended with a wake-up, which the next attempt then uses; guarded by {@code this}. */
    private boolean woken;

    /** Whether a round was tried before the current one; guarded by {@code this}. */
    private boolean triedBefore;

    private record Blocker(int group, int member) {}

    private BatchedMultiAcquisition(List<SameServerMembers> groups, long waitMillis, long leaseMillis, long ownerId) {
        this.groups = groups;
        this.waitMillis = waitMillis;
        this.leaseMillis = leaseMillis;
        this.ownerId = ownerId;
        this.deadline = Delays.deadline(waitMillis);
    }

    /**
     * Starts an acquisition.
     * @param groups the members, grouped by the script that takes them
     * @param waitMillis wait in ms, {@code 0} to try once, {@code -1} without bound
     * @param leaseMillis lease in ms, or {@code -1} for the watchdog
     * @param ownerId the owner of every member
     * @return completes with whether every member is held; cancelling it abandons the acquisition
     */
    public static CompletableFuture<Boolean> start(
            List<SameServerMembers> groups, long waitMillis, long leaseMillis, long ownerId) {
        BatchedMultiAcquisition acquisition = new BatchedMultiAcquisition(groups, waitMillis, leaseMillis, ownerId);
        acquisition.round();
        return acquisition.result;
    }

    private void round() {
        List<CompletableFuture<@Nullable Refusal>> attempts = new ArrayList<>(groups.size());
        for (SameServerMembers group : groups) {
            if (isAbandoned()) {
                break;
            }
            attempts.add(group.tryOnce(leaseMillis, ownerId, waitMillis != 0, deadline, this::wanted, start));
        }
        // The attempts are not cancelled with the caller's future: their replies say what they took,
        // which roundEnded gives back, as a single lock's acquisition gives back a grant that raced a cancel.
        CompletableFuture.allOf(attempts.toArray(CompletableFuture[]::new))
                .whenComplete((ok, failure) -> roundEnded(attempts));
    }

    private void roundEnded(List<CompletableFuture<@Nullable Refusal>> attempts) {
        List<SameServerMembers> granted = new ArrayList<>();
        Throwable cause = null;
        Refusal refusal = null;
        int refusedGroup = -1;
        for (int i = 0; i < attempts.size(); i++) {
            CompletableFuture<@Nullable Refusal> attempt = attempts.get(i);
            Refusal refused;
            try {
                refused = attempt.join();
            } catch (RuntimeException ex) {
                if (cause == null && !attempt.isCancelled()) {
                    cause = cause(ex);
                }
                continue;
            }
            if (refused == null) {
                granted.add(groups.get(i));
            } else if (refusal == null) {
                refusal = refused;
                refusedGroup = i;
            }
        }
        boolean gone;
        synchronized (this) {
            pending = null;
            gone = isAbandoned();
            if (!gone) {
                taken.addAll(granted);
            }
        }
        if (gone) {
            // The grants raced the caller's cancel, which released only what it found taken; and a
            // reply lost meanwhile is cleaned up only now that it is known to be lost.
            releaseQuietly(granted).whenComplete((released, ignored) -> ended(false));
            return;
        }
        Throwable failed = cause;
        boolean firstRound;
        synchronized (this) {
            firstRound = !triedBefore;
            triedBefore = true;
        }
        if (failed != null && !firstRound && waitMillis != 0 && closed() == null && !Delays.passed(deadline)) {
            // A waiter keeps waiting through an outage, as a single lock's does, and tries again
            // once Redis answers; a lost reply's holds are adopted by that attempt.
            rollBack().whenComplete((released, ignored) -> pauseAfterFailure());
        } else if (failed != null) {
            rollBack().whenComplete((released, ignored) -> {
                ended(false);
                LockException closed = closed();
                fail(closed != null ? closed : failed);
            });
        } else if (refusal == null) {
            ended(true);
            finish(true);
        } else {
            Refusal blocker = refusal;
            int group = refusedGroup;
            rollBack().whenComplete((released, ignored) -> waitFor(group, blocker));
        }
    }

    private void waitFor(int group, Refusal refusal) {
        if (isAbandoned()) {
            return;
        }
        if (waitMillis == 0 || Delays.passed(deadline)) {
            groups.get(group).timedOut(refusal.member(), ownerId, start);
            ended(false);
            finish(false);
            return;
        }
        Blocker blocker = new Blocker(group, refusal.member());
        ChannelWaiters joined;
        synchronized (this) {
            joined = blocker.equals(listeningTo) ? channel : null;
        }
        if (joined != null) {
            park(group, joined, refusal.ttlMillis());
            return;
        }
        // Another member refused it now: the wake-up it may have used was not for that one.
        leaveChannel();
        // Not cancelled with the caller's future: a join that completes anyway is left in joined().
        groups.get(group)
                .join(refusal.member(), ownerId)
                .whenComplete((waiters, failure) -> joined(group, blocker, refusal, waiters, failure));
    }

    private void joined(
            int group,
            Blocker blocker,
            Refusal refusal,
            @Nullable ChannelWaiters waiters,
            @Nullable Throwable failure) {
        if (failure != null) {
            if (!isAbandoned()) {
                ended(false);
                fail(cause(failure));
            }
            return;
        }
        boolean keep;
        synchronized (this) {
            keep = !isAbandoned();
            if (keep) {
                channel = waiters;
                listeningTo = blocker;
                woken = false;
            }
        }
        if (!keep) {
            // The caller gave up while the channel was joined: its clean-up did not see it.
            if (waiters != null) {
                waiters.leave();
            }
            return;
        }
        if (waiters == null) {
            park(group, null, refusal.ttlMillis());
            return;
        }
        // Subscribed only now: a release since the refusal was not heard, so try again before parking.
        CompletableFuture<?> subscribed = groups.get(group).subscribed(waiters, Delays.millisLeft(deadline));
        if (track(List.of(subscribed))) {
            subscribed.whenComplete((ignored, error) -> nextRound(false));
        }
    }

    private void pauseAfterFailure() {
        CompletableFuture<Void> pause =
                Delays.after(Math.min(FAILED_ATTEMPT_PAUSE_MILLIS, Delays.millisLeft(deadline)));
        if (track(List.of(pause))) {
            pause.whenComplete((ignored, error) -> nextRound(false));
        }
    }

    /** @return the failure of a group whose client was closed, or {@code null} */
    private @Nullable LockException closed() {
        for (SameServerMembers group : groups) {
            LockException closed = group.closed();
            if (closed != null) {
                return closed;
            }
        }
        return null;
    }

    private void park(int group, @Nullable ChannelWaiters joined, long ttlMillis) {
        CompletableFuture<Boolean> wake = groups.get(group).park(joined, ttlMillis, Delays.millisLeft(deadline));
        if (track(List.of(wake))) {
            wake.whenComplete((wakeUp, error) -> nextRound(Boolean.TRUE.equals(wakeUp)));
        }
    }

    private void nextRound(boolean wakeUp) {
        synchronized (this) {
            if (isAbandoned()) {
                return;
            }
            pending = null;
            woken = wakeUp;
        }
        round();
    }

    private void leaveChannel() {
        ChannelWaiters left;
        boolean passOn;
        synchronized (this) {
            left = channel;
            passOn = woken;
            channel = null;
            listeningTo = null;
            woken = false;
        }
        if (left != null) {
            if (passOn) {
                // The wake-up was meant for whoever waits next for that member, which may be free now.
                left.passOn();
            }
            left.leave();
        }
    }

    private void ended(boolean acquired) {
        leaveChannelAfter(acquired);
        for (SameServerMembers group : groups) {
            group.ended(ownerId, acquired, leaseMillis);
        }
    }

    private void leaveChannelAfter(boolean acquired) {
        if (acquired) {
            synchronized (this) {
                // The attempt that used the wake-up was granted: nothing to hand on.
                woken = false;
            }
        }
        leaveChannel();
    }

    /** Releases what this round took (one hold of each member, so earlier re-entered holds remain). */
    private CompletableFuture<Void> rollBack() {
        List<SameServerMembers> release;
        synchronized (this) {
            release = taken;
            taken = new ArrayList<>();
        }
        return releaseQuietly(release);
    }

    private CompletableFuture<Void> releaseQuietly(List<SameServerMembers> release) {
        return CompletableFuture.allOf(
                release.stream().map(group -> group.giveBack(ownerId)).toArray(CompletableFuture[]::new));
    }

    private boolean track(List<? extends CompletableFuture<?>> steps) {
        synchronized (this) {
            if (!isAbandoned()) {
                pending = steps;
                return true;
            }
        }
        steps.forEach(step -> step.cancel(false));
        return false;
    }

    private boolean wanted() {
        return !isAbandoned();
    }

    @Override
    void abandoned() {
        List<? extends CompletableFuture<?>> steps;
        synchronized (this) {
            steps = pending;
            pending = null;
        }
        if (steps != null) {
            steps.forEach(step -> step.cancel(false));
        }
        rollBack().whenComplete((released, ignored) -> ended(false));
    }
}
