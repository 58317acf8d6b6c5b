package dev.distlock.core.internal.composite;

import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.acquire.CompositeLocks;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition of a red lock, in rounds that hold no thread while they wait. A round asks every
 * master at once for a single attempt and decides when all have answered or its node timeout has
 * passed; a grant that arrives later is released when it arrives, and a master whose call of an
 * earlier round is still unanswered is not asked again. The round wins with a quorum of grants and
 * validity left; otherwise its grants are released and a new round starts after a random pause,
 * until the caller's wait is spent.
 */
public final class RedLockAcquisition extends CompositeAcquisition {

    private static final Logger log = LoggerFactory.getLogger(RedLockAcquisition.class);

    private final List<RedisLock> locks;
    private final int quorum;
    private final String name;
    private final long leaseMillis;
    private final long ownerId;
    private final long deadline;
    /** Per master, its call of an earlier round that may still be unanswered. */
    private final List<@Nullable CompletableFuture<?>> busy;

    /** The current round's decision, or pause; guarded by {@code this}. */
    private @Nullable CompletableFuture<?> pending;
    /** The winning round's grants, until the caller has them; guarded by {@code this}. */
    private @Nullable List<RedisLock> won;

    private RedLockAcquisition(List<RedisLock> locks, String name, long waitMillis, long leaseMillis, long ownerId) {
        this.locks = locks;
        this.quorum = locks.size() / 2 + 1;
        this.name = name;
        this.leaseMillis = leaseMillis;
        this.ownerId = ownerId;
        this.deadline = Delays.deadline(waitMillis);
        this.busy = new ArrayList<>(Collections.nCopies(locks.size(), null));
    }

    /**
     * Starts an acquisition.
     * @param locks one member per master
     * @param name the red lock's name, for logs
     * @param waitMillis wait in ms, {@code 0} for one round, {@code -1} without bound
     * @param leaseMillis lease in ms, or {@code -1} for the watchdog
     * @param ownerId the owner
     * @return completes with whether a quorum is held; cancelling it abandons the acquisition
     */
    public static CompletableFuture<Boolean> start(
            List<RedisLock> locks, String name, long waitMillis, long leaseMillis, long ownerId) {
        RedLockAcquisition acquisition = new RedLockAcquisition(locks, name, waitMillis, leaseMillis, ownerId);
        acquisition.round();
        return acquisition.result;
    }

    private void round() {
        if (isAbandoned()) {
            return;
        }
        LockException closed = CompositeLocks.closedMember(locks, name);
        if (closed != null) {
            fail(closed);
            return;
        }
        long start = System.nanoTime();
        long lease = locks.stream()
                .mapToLong(lock -> CompositeLocks.effectiveLeaseMillis(lock, leaseMillis))
                .min()
                .orElse(leaseMillis);
        long timeout = RedLockTiming.nodeTimeoutMillis(lease, Delays.millisLeft(deadline));
        List<@Nullable CompletableFuture<Boolean>> asks = new ArrayList<>(locks.size());
        for (int i = 0; i < locks.size(); i++) {
            CompletableFuture<?> previous = busy.get(i);
            if (previous != null && !previous.isDone()) {
                // Its connection is stuck: more scripts would only pile up behind the first.
                asks.add(null);
                continue;
            }
            CompletableFuture<Boolean> ask = Members.tryLock(locks.get(i), 0, leaseMillis, ownerId);
            busy.set(i, ask);
            asks.add(ask);
        }
        CompletableFuture<Void> decided = new CompletableFuture<>();
        CompletableFuture.allOf(asks.stream().filter(Objects::nonNull).toArray(CompletableFuture[]::new))
                .whenComplete((ok, failure) -> decided.complete(null));
        CompletableFuture<Void> timer = Delays.after(timeout);
        timer.thenRun(() -> decided.complete(null));
        // A caller that gives up cancels the decision, which then comes at once and releases the grants.
        track(decided);
        decided.whenComplete((ok, failure) -> {
            timer.cancel(false);
            decide(asks, start, lease, timeout);
        });
    }

    private void decide(List<@Nullable CompletableFuture<Boolean>> asks, long start, long lease, long timeout) {
        List<RedisLock> granted = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            CompletableFuture<Boolean> ask = asks.get(i);
            if (ask == null) {
                continue;
            }
            RedisLock lock = locks.get(i);
            if (!ask.isDone()) {
                // Not counted: a grant that arrives late is this round's, and is undone when it arrives.
                busy.set(
                        i,
                        ask.handle((ok, failure) -> Boolean.TRUE.equals(ok)
                                        ? Members.releaseQuietly(List.of(lock), ownerId)
                                        : CompletableFuture.completedFuture(null))
                                .thenCompose(release -> release));
            } else if (ask.isCompletedExceptionally()) {
                log.debug(
                        "Red lock {}: master {} of {} failed",
                        name,
                        i + 1,
                        locks.size(),
                        ask.handle((ok, failure) -> cause(failure)).join());
            } else if (ask.join()) {
                granted.add(lock);
            }
        }
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        long validity = lease - elapsed - RedLockTiming.driftAllowanceMillis(lease);
        boolean wins = granted.size() >= quorum && validity > 0;
        synchronized (this) {
            wins = wins && !isAbandoned();
            if (wins) {
                won = granted;
                pending = null;
                // Recorded before the caller can unlock, and under the monitor an abandon takes too.
                RedLockHolds.acquired(locks, name, leaseMillis, ownerId);
            }
        }
        if (wins) {
            finish(true);
            return;
        }
        log.debug(
                "Red lock {}: {} of {} masters granted within {} ms (quorum {}), validity {} ms; releasing the grants",
                name,
                granted.size(),
                locks.size(),
                timeout,
                quorum,
                validity);
        // Only this round's grants are undone, one release each: a master that refused, failed or
        // did not answer may hold an earlier, re-entered hold of the same owner, which a release
        // there would take away.
        CompletableFuture<Void> rollback = Members.releaseQuietly(granted, ownerId);
        for (int i = 0; i < locks.size(); i++) {
            if (granted.contains(locks.get(i))) {
                busy.set(i, rollback);
            }
        }
        rollback.whenComplete((ok, failure) -> retryOrGiveUp());
    }

    private void retryOrGiveUp() {
        if (isAbandoned()) {
            return;
        }
        if (Delays.passed(deadline)) {
            finish(false);
            return;
        }
        // Redlock's random retry delay, so that competing clients do not split the votes again.
        CompletableFuture<Void> pause = Delays.backOff(20, 120, deadline);
        if (track(pause)) {
            pause.thenRun(this::round);
        }
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
        List<RedisLock> held;
        synchronized (this) {
            step = pending;
            pending = null;
            held = won;
            won = null;
        }
        if (step != null) {
            step.cancel(false);
        }
        if (held != null) {
            RedLockHolds.released(locks, ownerId);
            Members.releaseQuietly(held, ownerId);
        }
    }
}
