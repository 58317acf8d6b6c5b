package dev.distlock.core.internal.composite;

import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.acquire.CompositeLocks;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a multi lock, as a chain of member calls that holds no thread while it waits.
 * A round takes the members in canonical order, each with what is left of the round's wait; a
 * member that refuses or fails ends the round, which releases every member it took. After the
 * last member, the leases of the earlier ones are restarted (owner-checked), and a member lost in
 * the meantime fails the round too. Rounds repeat after a short random pause until the caller's
 * wait is spent; without a wait bound, each round still ends after 1.5 s per member, so that two
 * callers whose orders differ back off instead of each holding a member forever.
 */
public final class MultiAcquisition extends CompositeAcquisition {

    /** Length of one round per member when the caller waits without bound (as Redisson does). */
    static final long FOREVER_ROUND_MILLIS_PER_MEMBER = 1500;

    private final List<RedisLock> ordered;
    private final long waitMillis;
    private final long leaseMillis;
    private final long ownerId;
    private final long deadline;

    /** Members this round took, in order; guarded by {@code this}. */
    private List<RedisLock> taken = new ArrayList<>();
    /** The member call or pause in progress, cancelled when the caller gives up; guarded by {@code this}. */
    private @Nullable CompletableFuture<?> pending;

    private MultiAcquisition(List<RedisLock> ordered, long waitMillis, long leaseMillis, long ownerId) {
        this.ordered = ordered;
        this.waitMillis = waitMillis;
        this.leaseMillis = leaseMillis;
        this.ownerId = ownerId;
        this.deadline = Delays.deadline(waitMillis);
    }

    /**
     * Starts an acquisition.
     * @param ordered the members in canonical order
     * @param waitMillis wait in ms, {@code 0} to try once, {@code -1} without bound
     * @param leaseMillis lease in ms, or {@code -1} for the watchdog
     * @param ownerId the owner of every member
     * @return completes with whether every member is held; cancelling it abandons the acquisition
     */
    public static CompletableFuture<Boolean> start(
            List<RedisLock> ordered, long waitMillis, long leaseMillis, long ownerId) {
        MultiAcquisition acquisition = new MultiAcquisition(ordered, waitMillis, leaseMillis, ownerId);
        acquisition.round();
        return acquisition.result;
    }

    private void round() {
        if (isAbandoned()) {
            return;
        }
        long roundDeadline =
                waitMillis >= 0 ? deadline : Delays.deadline(FOREVER_ROUND_MILLIS_PER_MEMBER * ordered.size());
        next(0, roundDeadline);
    }

    private void next(int index, long roundDeadline) {
        if (index == ordered.size()) {
            confirmLeases();
            return;
        }
        RedisLock member = ordered.get(index);
        CompletableFuture<Boolean> attempt =
                Members.tryLock(member, Delays.millisLeft(roundDeadline), leaseMillis, ownerId);
        if (!track(attempt)) {
            return;
        }
        attempt.whenComplete((acquired, failure) -> {
            Throwable cause = cause(failure);
            boolean granted = cause == null && Boolean.TRUE.equals(acquired);
            boolean gone;
            synchronized (this) {
                pending = null;
                gone = isAbandoned();
                if (!gone && granted) {
                    taken.add(member);
                }
            }
            if (gone) {
                // The grant raced the caller's cancel, which released only what it found taken.
                if (granted) {
                    Members.releaseQuietly(List.of(member), ownerId);
                }
            } else if (cause != null) {
                rollBack().whenComplete((ok, ignored) -> fail(cause));
            } else if (!granted) {
                rollBack().whenComplete((ok, ignored) -> retryOrGiveUp());
            } else {
                next(index + 1, roundDeadline);
            }
        });
    }

    /**
     * Each member's lease started when it was taken: an early one may have lapsed (and been taken
     * by someone else) while a later one was awaited. Restart every lease but the last one's, and
     * start over if a member was lost.
     */
    private void confirmLeases() {
        List<RedisLock> earlier;
        synchronized (this) {
            earlier = List.copyOf(taken.subList(0, Math.max(0, taken.size() - 1)));
        }
        List<CompletableFuture<Boolean>> renewals = earlier.stream()
                .map(member -> CompositeLocks.renewAsync(member, leaseMillis, ownerId))
                .toList();
        CompletableFuture.allOf(renewals.toArray(CompletableFuture[]::new)).whenComplete((ok, failure) -> {
            if (failure != null) {
                rollBack().whenComplete((released, ignored) -> fail(cause(failure)));
            } else if (renewals.stream().allMatch(CompletableFuture::join)) {
                finish(true);
            } else {
                rollBack().whenComplete((released, ignored) -> retryOrGiveUp());
            }
        });
    }

    private void retryOrGiveUp() {
        if (Delays.passed(deadline)) {
            finish(false);
            return;
        }
        CompletableFuture<Void> pause = Delays.backOff(5, 50, deadline);
        if (track(pause)) {
            pause.thenRun(this::round);
        }
    }

    /** Releases what this round took (one hold each, so earlier re-entered holds remain). */
    private CompletableFuture<Void> rollBack() {
        List<RedisLock> release;
        synchronized (this) {
            release = Members.reversed(taken);
            taken = new ArrayList<>();
        }
        return Members.releaseQuietly(release, ownerId);
    }

    private boolean track(CompletableFuture<?> step) {
        synchronized (this) {
            if (!isAbandoned()) {
                pending = step;
                return true;
            }
        }
        step.cancel(false);
        return false;
    }

    @Override
    void abandoned() {
        CompletableFuture<?> step;
        synchronized (this) {
            step = pending;
            pending = null;
        }
        if (step != null) {
            // A member's own cancel leaves its queue and releases a grant that raced it.
            step.cancel(false);
        }
        rollBack();
    }
}
