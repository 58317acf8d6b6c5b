package dev.distlock.spring.integration;

import dev.distlock.core.LockException;
import dev.distlock.core.StringLockKeys;
import dev.distlock.spring.internal.hold.RegistryHolds;
import dev.distlock.spring.internal.hold.RegistryHolds.RegistryHold;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One key's lock in the layout of Spring Integration's {@code RedisLockRegistry}, taken, renewed and
 * released with that registry's scripts, so that its spin and pub/sub locks and this one exclude
 * each other. As there, a local {@link ReentrantLock} keeps the registry's threads apart (they all
 * write the registry's id), and every acquisition, nested ones too, takes the key again, which
 * restarts its expiry. A release publishes on the unlock channel as the pub/sub lock does, whatever
 * kind the other registries are; a waiter here listens on it and also retries every 100 ms, since
 * spin locks publish nothing.
 *
 * <p>Core keeps no hold of such a key, so each thread's outermost acquisition and hold are told,
 * under the Redis key as the lock name, to the client's listeners, the starter's observers and the
 * {@code distlock} endpoint through {@link RegistryHolds}.
 */
final class SpringIntegrationRedisLock implements KeyLock {

    private static final Logger logger = LoggerFactory.getLogger(SpringIntegrationRedisLock.class);

    private static final long FOREVER = -1;

    private final SpringIntegrationLayout layout;
    private final StringLockKeys keys;
    private final String key;
    private final ReentrantLock local;
    private final LongSupplier defaultLease;
    private final RegistryHolds reports;

    private volatile long lastAcquired;
    /** The holding thread's hold count, for the endpoint; only the holding thread changes it. */
    private volatile int holdCount;
    /** What was told of the current hold; only the holding thread starts or ends it. */
    private volatile @Nullable RegistryHold hold;
    /** The watchdog's renewal of the current hold; only the holding thread starts or stops it. */
    private volatile @Nullable ScheduledFuture<?> renewal;

    SpringIntegrationRedisLock(
            SpringIntegrationLayout layout, String lockKey, LongSupplier defaultLease, RegistryHolds reports) {
        this.layout = layout;
        this.reports = reports;
        this.keys = layout.keys;
        this.key = layout.key(lockKey);
        this.local = layout.localLock(key);
        this.defaultLease = defaultLease;
    }

    @Override
    public void lock() {
        lockUninterruptibly(defaultLease.getAsLong());
    }

    @Override
    public void lock(Duration ttl) {
        lockUninterruptibly(RegistryLock.positiveMillis(ttl, "ttl"));
    }

    private void lockUninterruptibly(long lease) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (acquire(FOREVER, lease)) {
                        return;
                    }
                } catch (InterruptedException ex) {
                    // As Lock.lock(): keep waiting, and hand the interrupt back once the lock is held.
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquire(FOREVER, defaultLease.getAsLong());
    }

    @Override
    public long defaultLeaseMillis() {
        return defaultLease.getAsLong();
    }

    @Override
    public boolean tryLockFor(long waitMillis, long lease) throws InterruptedException {
        return acquire(waitMillis, lease);
    }

    /**
     * Takes the local lock, then the key, within the wait.
     * @param waitMillis the wait, or {@link #FOREVER}
     * @param lease the lease in ms, or -1 for the watchdog
     */
    private boolean acquire(long waitMillis, long lease) throws InterruptedException {
        RegistryHolds.Attempt attempt = local.isHeldByCurrentThread() ? null : reports.started(key, lease);
        boolean acquired;
        try {
            acquired = acquireLocallyAndKey(waitMillis, lease);
        } catch (InterruptedException | RuntimeException ex) {
            if (attempt != null) {
                attempt.failed(ex);
            }
            throw ex;
        }
        if (attempt != null) {
            if (acquired) {
                hold = attempt.acquired(key, () -> holdCount);
            } else {
                attempt.timedOut();
            }
        }
        if (acquired && lease == -1 && renewal == null) {
            // Once the hold is known: a renewal that finds the key gone reports the hold's loss.
            startRenewal();
        }
        return acquired;
    }

    private boolean acquireLocallyAndKey(long waitMillis, long lease) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, waitMillis));
        if (waitMillis == FOREVER) {
            local.lockInterruptibly();
        } else if (!local.tryLock(waitMillis, TimeUnit.MILLISECONDS)) {
            return false;
        }
        boolean acquired = false;
        try {
            acquired = takeKey(waitMillis == FOREVER ? Long.MAX_VALUE : deadline, lease);
            return acquired;
        } finally {
            if (acquired) {
                lastAcquired = System.currentTimeMillis();
                holdCount = local.getHoldCount();
            } else {
                local.unlock();
            }
        }
    }

    /**
     * Takes the key within the wait: one attempt when there is no wait (or none left after the local
     * lock), else attempts until the deadline, woken by releases.
     * @param deadline {@link System#nanoTime()} when the wait ends, or {@link Long#MAX_VALUE}
     * @param lease the lease in ms, or -1 for the watchdog
     */
    private boolean takeKey(long deadline, long lease) throws InterruptedException {
        Duration ttl = lease == -1 ? layout.watchdogTimeout : Duration.ofMillis(lease);
        if (keys.trySetOrExtend(key, layout.value, ttl)) {
            return true;
        }
        if (deadline != Long.MAX_VALUE && deadline - System.nanoTime() <= 0) {
            // As Lock.tryLock() and RedisLockRegistry: a call without a wait makes one attempt, so it
            // answers for the time of invocation. A later attempt could take a lock that was held then,
            // once its lease ran out while this thread was delayed.
            return false;
        }
        // Listen before the next try, so that a release in between is not missed.
        try (StringLockKeys.Listener releases = keys.listen(layout.channel(key))) {
            while (true) {
                if (keys.trySetOrExtend(key, layout.value, ttl)) {
                    return true;
                }
                long left = deadline == Long.MAX_VALUE
                        ? Long.MAX_VALUE
                        : TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return false;
                }
                releases.await(Duration.ofMillis(Math.min(left, SpringIntegrationLayout.RETRY_INTERVAL.toMillis())));
            }
        }
    }

    private void startRenewal() {
        long period = Math.max(1, layout.watchdogTimeout.toMillis() / 3);
        renewal = SpringIntegrationLayout.renewals()
                .scheduleWithFixedDelay(this::renewOnce, period, period, TimeUnit.MILLISECONDS);
    }

    private void renewOnce() {
        try {
            if (!keys.expireIfHeld(key, layout.value, layout.watchdogTimeout)) {
                logger.warn("Lock '{}' was lost before it was released: its key expired or was deleted", key);
                stopRenewal();
                RegistryHold current = hold;
                if (current != null) {
                    current.leaseLost();
                }
            }
        } catch (LockException ex) {
            if (layout.clientClosed()) {
                // Nothing will renew it any more: the key lapses as if the process had died.
                stopRenewal();
            } else {
                // As the watchdog: try again next period, the lease may still outlast the outage.
                logger.debug("Could not renew lock '{}'", key, ex);
            }
        }
    }

    private void stopRenewal() {
        ScheduledFuture<?> current = renewal;
        if (current != null) {
            current.cancel(false);
            renewal = null;
        }
    }

    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalStateException("You do not own lock at " + key);
        }
        if (local.getHoldCount() > 1) {
            local.unlock();
            holdCount = local.getHoldCount();
            return;
        }
        RegistryHold current = hold;
        hold = null;
        try {
            stopRenewal();
            if (current != null) {
                current.releasing();
            }
            if (!keys.deleteIfHeldAndPublish(key, layout.value, layout.channel(key), key)) {
                if (current != null) {
                    current.leaseLost();
                }
                throw new ConcurrentModificationException("Lock was released in the store due to expiration. "
                        + "The integrity of data protected by lock '" + key + "' may have been compromised.");
            }
            if (current != null) {
                current.released();
            }
        } finally {
            holdCount = 0;
            local.unlock();
            if (current != null) {
                // After a release, a no-op; after a loss or a failed release, the hold ends here.
                current.ended();
            }
        }
    }

    @Override
    public void checkHeld() {
        if (!local.isHeldByCurrentThread() || !keys.expireIfHeld(key, layout.value, currentTtl())) {
            throw new IllegalStateException(
                    "Could not renew mutex at " + key + ": the current thread does not hold it");
        }
    }

    private Duration currentTtl() {
        long lease = defaultLease.getAsLong();
        return lease == -1 ? layout.watchdogTimeout : Duration.ofMillis(lease);
    }

    @Override
    public void renew(long leaseMillis) {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalStateException(
                    "Could not renew mutex at " + key + ": the current thread does not hold it");
        }
        // A lease given explicitly is fixed from now on, as for Distlock-layout locks.
        stopRenewal();
        if (!keys.expireIfHeld(key, layout.value, Duration.ofMillis(leaseMillis))) {
            throw new IllegalStateException("Could not renew mutex at " + key + ": its lease had ended");
        }
    }

    @Override
    public boolean isUnusedSince(long threshold) {
        long acquiredAt = lastAcquired;
        return acquiredAt > 0 && acquiredAt < threshold && !local.isLocked();
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Conditions are not supported by lock '" + key + "'");
    }

    @Override
    public String toString() {
        return "DistlockLockRegistry lock [key=" + key + ", layout=RedisLockRegistry, heldHere=" + local.isLocked()
                + "]";
    }
}
