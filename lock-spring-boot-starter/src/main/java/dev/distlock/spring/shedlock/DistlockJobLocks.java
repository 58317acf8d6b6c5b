package dev.distlock.spring.shedlock;

import dev.distlock.spring.internal.hold.BridgeLocks;
import dev.distlock.spring.internal.hold.BridgeLocks.BridgeHold;
import java.time.Duration;
import java.util.Optional;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/** Job locks in Distlock's layout: a reentrant lock named after the job, one owner per run. */
final class DistlockJobLocks implements DistlockLockProvider.JobLocks {

    private final BridgeLocks locks;

    DistlockJobLocks(BridgeLocks locks) {
        this.locks = locks;
    }

    @Override
    public Optional<SimpleLock> tryLock(LockConfiguration configuration, Duration lease) {
        String name = configuration.getName();
        BridgeHold hold = locks.tryAcquire(name, name, lease, "@SchedulerLock job '" + name + "'");
        return hold == null ? Optional.empty() : Optional.of(new JobLock(configuration, hold));
    }

    /** One run's lock; an extension hands the same hold on to a new instance. */
    private static final class JobLock extends AbstractSimpleLock {

        private final BridgeHold hold;

        JobLock(LockConfiguration configuration, BridgeHold hold) {
            super(configuration);
            this.hold = hold;
        }

        @Override
        protected void doUnlock() {
            hold.releaseAfter(DistlockLockProvider.JobTimes.until(lockConfiguration.getLockAtLeastUntil()));
        }

        @Override
        protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
            DistlockLockProvider.JobTimes.check(newConfiguration);
            Duration lease = DistlockLockProvider.JobTimes.until(newConfiguration.getLockAtMostUntil());
            return hold.renewLease(lease) ? Optional.of(new JobLock(newConfiguration, hold)) : Optional.empty();
        }
    }
}
