package dev.distlock.core.internal.composite;

import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.acquire.CompositeLocks;
import dev.distlock.core.internal.engine.LockEngine;
import java.util.List;

/** The time bounds of a red lock round, from Redis' description of Redlock. */
public final class RedLockTiming {

    /** Floor of the per-round answer timeout: below it a healthy but busy master would miss rounds. */
    static final long MIN_NODE_TIMEOUT_MILLIS = 250;

    private RedLockTiming() {}

    /**
     * Returns how long one round waits for the masters' answers: 5% of the lease (Redlock asks for
     * a timeout small against the lease, so that a master that is down costs little of it), at
     * most the caller's remaining wait, and never less than {@value #MIN_NODE_TIMEOUT_MILLIS} ms.
     * @param leaseMillis lease in ms
     * @param remainingWaitMillis what is left of the caller's wait in ms, or {@link Long#MAX_VALUE}
     * @return the per-round answer timeout in ms
     */
    static long nodeTimeoutMillis(long leaseMillis, long remainingWaitMillis) {
        return Math.max(MIN_NODE_TIMEOUT_MILLIS, Math.min(leaseMillis / 20, remainingWaitMillis));
    }

    /**
     * Returns the clock-drift allowance subtracted from the lease: 1% of it plus 2 ms.
     * @param leaseMillis lease in ms
     * @return the allowance in ms
     */
    public static long driftAllowanceMillis(long leaseMillis) {
        return leaseMillis / 100 + 2;
    }

    /**
     * Returns how often a watchdog hold of a red lock is renewed and checked: every third of the
     * shortest watchdog timeout of its members, the period of their own watchdogs, so that a master
     * that lost the hold is taken again, or the loss of a majority found, within one of their rounds.
     * @param locks one member per master
     * @return the period in ms
     */
    static long renewalPeriodMillis(List<RedisLock> locks) {
        long watchdog = locks.stream()
                .mapToLong(lock -> CompositeLocks.effectiveLeaseMillis(lock, LockEngine.WATCHDOG))
                .min()
                .orElseThrow();
        return Math.max(1, watchdog / 3);
    }
}
