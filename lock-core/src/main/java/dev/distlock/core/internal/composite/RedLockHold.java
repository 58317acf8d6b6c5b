package dev.distlock.core.internal.composite;

import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.acquire.CompositeLocks;
import dev.distlock.core.internal.engine.LockEngine;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One owner's watchdog hold of a red lock, checked at every renewal round: every third of the
 * members' watchdog timeout, each master is asked to renew the owner's hold with the owner-checked
 * renewal script. While a quorum of masters confirm the hold, a master that answers that it lost it
 * (restarted empty, evicted or expired the key) is taken again with one attempt, so that losing
 * another master later still leaves a majority. The attempt refuses a master that another owner
 * holds now; that master is asked again at the next round. Once a majority of masters answer that
 * they no longer hold it, the hold is lost: a warning, {@code onLeaseLost} with the red lock's name
 * to each listener of the members once, and the members' holds are no longer renewed. A master that
 * does not answer counts neither way: a round that cannot tell waits for the next.
 */
final class RedLockHold {

    private static final Logger log = LoggerFactory.getLogger(RedLockHold.class);

    private final List<RedisLock> locks;
    private final String name;
    private final long ownerId;
    private final int quorum;
    private final long periodMillis;
    private final Consumer<RedLockHold> onEnd;

    /** Acquisitions not yet unlocked; guarded by {@code this}. */
    private int count = 1;
    /** Unlocked for the last time, or lost; guarded by {@code this}. */
    private boolean ended;
    /** The pause before the next round; guarded by {@code this}. */
    private @Nullable CompletableFuture<Void> next;
    /** Masters that refused to be taken again and were warned about; guarded by {@code this}. */
    private final Set<RedisLock> refused = Collections.newSetFromMap(new IdentityHashMap<>());

    RedLockHold(List<RedisLock> locks, String name, long ownerId, Consumer<RedLockHold> onEnd) {
        this.locks = locks;
        this.name = name;
        this.ownerId = ownerId;
        this.quorum = locks.size() / 2 + 1;
        this.onEnd = onEnd;
        this.periodMillis = RedLockTiming.renewalPeriodMillis(locks);
    }

    /** Schedules the first round. */
    void start() {
        schedule();
    }

    /** @return {@code false} when the hold was lost already (a new one must be started) */
    synchronized boolean acquiredAgain() {
        if (ended) {
            return false;
        }
        count++;
        return true;
    }

    /** @return whether that was the last unlock: the checks stop */
    synchronized boolean releasedOnce() {
        if (--count > 0 && !ended) {
            return false;
        }
        end();
        return true;
    }

    private synchronized boolean ended() {
        return ended;
    }

    private synchronized void end() {
        ended = true;
        if (next != null) {
            next.cancel(false);
        }
    }

    private void schedule() {
        CompletableFuture<Void> pause = Delays.after(periodMillis);
        synchronized (this) {
            if (ended) {
                pause.cancel(false);
                return;
            }
            next = pause;
        }
        pause.thenRun(this::round);
    }

    private void round() {
        if (ended()) {
            return;
        }
        if (CompositeLocks.closedMember(locks, name) != null) {
            // A closed client forgot its holds: nothing is renewed or reported any more.
            synchronized (this) {
                end();
            }
            onEnd.accept(this);
            return;
        }
        List<CompletableFuture<@Nullable Boolean>> answers = new ArrayList<>(locks.size());
        for (RedisLock lock : locks) {
            answers.add(renew(lock));
        }
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                .whenComplete((ok, failure) -> Delays.execute(() -> decide(answers)));
    }

    private CompletableFuture<@Nullable Boolean> renew(RedisLock lock) {
        CompletableFuture<Boolean> renewal;
        try {
            renewal = CompositeLocks.renewAsync(lock, LockEngine.WATCHDOG, ownerId);
        } catch (RuntimeException ex) {
            renewal = CompletableFuture.failedFuture(ex);
        }
        return renewal.handle((held, failure) -> {
            if (failure != null) {
                log.debug("Red lock {}: renewing its hold on {} failed", name, CompositeLocks.sortKey(lock), failure);
                return null;
            }
            return held;
        });
    }

    private void decide(List<CompletableFuture<@Nullable Boolean>> answers) {
        int held = 0;
        List<RedisLock> lost = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            Boolean answer = answers.get(i).join();
            if (Boolean.TRUE.equals(answer)) {
                held++;
            } else if (answer != null) {
                lost.add(locks.get(i));
            }
        }
        if (lost.size() > locks.size() - quorum) {
            lose(held, lost.size());
        } else if (held >= quorum && !lost.isEmpty()) {
            new RedLockRetake(this, lost, held).run().whenComplete((ok, failure) -> schedule());
        } else {
            schedule();
        }
    }

    private void lose(int held, int lost) {
        synchronized (this) {
            if (ended) {
                // The owner's last unlock came first: nothing to report.
                return;
            }
            end();
        }
        onEnd.accept(this);
        log.warn(
                "Lost red lock {} (owner {}): {} of its {} masters no longer hold it (restarted without"
                        + " persistence, evicted or expired) and {} still do, fewer than its quorum of {}; its"
                        + " remaining holds are no longer renewed",
                name,
                ownerId,
                lost,
                locks.size(),
                held,
                quorum);
        for (RedisLock lock : locks) {
            CompositeLocks.forgetHold(lock, ownerId, false);
        }
        CompositeLocks.listenersOf(locks).onLeaseLost(name, ownerId);
    }

    /**
     * Returns whether a member taken again may be kept: the owner has not unlocked for the last
     * time, nor was the hold lost, since the attempt started. Otherwise the caller releases it.
     * @return whether the hold is still on
     */
    boolean keeps() {
        return !ended();
    }

    /**
     * Records the outcome of an attempt to take a master again.
     * @param lock the master
     * @param taken whether it was taken
     * @return whether a refusal is the first since the master was last held: warned about once, not every round
     */
    synchronized boolean retakeEnded(RedisLock lock, boolean taken) {
        return taken ? refused.remove(lock) : refused.add(lock);
    }

    List<RedisLock> locks() {
        return locks;
    }

    String name() {
        return name;
    }

    long ownerId() {
        return ownerId;
    }

    long periodMillis() {
        return periodMillis;
    }
}
