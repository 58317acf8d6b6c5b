package dev.distlock.spring.shedlock;

import java.time.Duration;
import java.util.Optional;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * Job locks in both layouts at once, for the step between ShedLock's Redis layout and Distlock's:
 * a run takes ShedLock's key first, then the Distlock lock, and holds both, so that it excludes the
 * instances still on the first layout and those already on the second. Both are tries without a
 * wait, taken in one order by every instance, so no two runs can each hold one and wait for the other.
 */
final class BothLayoutsJobLocks implements DistlockLockProvider.JobLocks {

    private final ShedLockRedisJobLocks shedLockRedis;
    private final DistlockJobLocks distlock;

    BothLayoutsJobLocks(ShedLockRedisJobLocks shedLockRedis, DistlockJobLocks distlock) {
        this.shedLockRedis = shedLockRedis;
        this.distlock = distlock;
    }

    @Override
    public Optional<SimpleLock> tryLock(LockConfiguration configuration, Duration lease) {
        Optional<SimpleLock> first = shedLockRedis.tryLock(configuration, lease);
        if (first.isEmpty()) {
            return Optional.empty();
        }
        Optional<SimpleLock> second;
        try {
            second = distlock.tryLock(configuration, lease);
        } catch (RuntimeException ex) {
            ((ShedLockRedisJobLocks.KeyLock) first.get()).releaseUnused();
            throw ex;
        }
        if (second.isEmpty()) {
            // The run does not start, so its lockAtLeastFor does not apply: free the first key now.
            ((ShedLockRedisJobLocks.KeyLock) first.get()).releaseUnused();
            return Optional.empty();
        }
        return Optional.of(new BothLock(configuration, first.get(), second.get()));
    }

    /** One run's two locks, released and extended together. */
    private static final class BothLock extends AbstractSimpleLock {

        private final SimpleLock shedLockRedis;
        private final SimpleLock distlock;

        BothLock(LockConfiguration configuration, SimpleLock shedLockRedis, SimpleLock distlock) {
            super(configuration);
            this.shedLockRedis = shedLockRedis;
            this.distlock = distlock;
        }

        @Override
        protected void doUnlock() {
            // Distlock's first, the reverse of taking them; a failure of one still releases the other.
            try {
                distlock.unlock();
            } finally {
                shedLockRedis.unlock();
            }
        }

        @Override
        protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
            Optional<SimpleLock> first =
                    shedLockRedis.extend(newConfiguration.getLockAtMostFor(), newConfiguration.getLockAtLeastFor());
            if (first.isEmpty()) {
                return Optional.empty();
            }
            Optional<SimpleLock> second =
                    distlock.extend(newConfiguration.getLockAtMostFor(), newConfiguration.getLockAtLeastFor());
            return second.map(extended -> new BothLock(newConfiguration, first.get(), extended));
        }
    }
}
