package dev.distlock.core.internal.composite;

import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.acquire.CompositeLocks;
import dev.distlock.core.internal.engine.LockEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes again the masters a red lock's watchdog hold lost while a quorum of the others still hold
 * it: one attempt each with the watchdog lease, the same attempt as an acquisition's, which never
 * takes a master that another owner holds now. A member's client that still records the lost hold
 * (its own watchdog has not come round to it yet) forgets it first and reports it lost, as that
 * watchdog would, so that the new hold is counted once.
 */
final class RedLockRetake {

    private static final Logger log = LoggerFactory.getLogger(RedLockRetake.class);

    private final RedLockHold hold;
    private final List<RedisLock> lost;
    private final int held;

    /**
     * @param hold the red lock hold
     * @param lost the masters that answered that they no longer hold it
     * @param held how many masters confirmed the hold in the same round, a quorum at least
     */
    RedLockRetake(RedLockHold hold, List<RedisLock> lost, int held) {
        this.hold = hold;
        this.lost = lost;
        this.held = held;
    }

    /** @return completes when every attempt has ended, never exceptionally */
    CompletableFuture<Void> run() {
        List<CompletableFuture<@Nullable Void>> attempts = new ArrayList<>();
        for (RedisLock lock : lost) {
            if (!hold.keeps() || !CompositeLocks.forgetHold(lock, hold.ownerId(), true)) {
                // The owner unlocks it right now: nothing to take again.
                continue;
            }
            attempts.add(Members.tryLock(lock, 0, LockEngine.WATCHDOG, hold.ownerId())
                    .handle((taken, failure) -> {
                        ended(lock, taken, failure);
                        return null;
                    }));
        }
        return CompletableFuture.allOf(attempts.toArray(CompletableFuture[]::new));
    }

    private void ended(RedisLock lock, @Nullable Boolean taken, @Nullable Throwable failure) {
        String master = CompositeLocks.sortKey(lock);
        if (Boolean.TRUE.equals(taken)) {
            hold.retakeEnded(lock, true);
            if (!hold.keeps()) {
                // Unlocked for the last time, or lost, while the attempt ran: the owner no longer wants it.
                Members.releaseQuietly(List.of(lock), hold.ownerId());
                return;
            }
            log.info(
                    "Red lock {} (owner {}): took {} again after it lost the hold; {} of {} masters hold it",
                    hold.name(),
                    hold.ownerId(),
                    master,
                    held + 1,
                    hold.locks().size());
        } else if (failure == null && hold.retakeEnded(lock, false)) {
            log.warn(
                    "Red lock {} (owner {}): cannot take {} again, another owner holds it there; still held on {}"
                            + " of {} masters, trying again in {} ms",
                    hold.name(),
                    hold.ownerId(),
                    master,
                    held,
                    hold.locks().size(),
                    hold.periodMillis());
        } else {
            log.debug(
                    "Red lock {} (owner {}): taking {} again failed or was refused again; trying again in {} ms",
                    hold.name(),
                    hold.ownerId(),
                    master,
                    hold.periodMillis(),
                    Members.unwrap(failure));
        }
    }
}
