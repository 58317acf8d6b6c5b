package dev.distlock.spring.integration;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * One key's lock of a {@link DistlockLockRegistry}. Every acquisition, nested ones too, goes to
 * Redis (a nested one restarts a fixed lease, as Spring Integration's registries do); the counts
 * kept here only answer, without a round trip, whether a thread holds the lock at all.
 */
final class RegistryLock implements DistributedLock {

    private static final Logger logger = LoggerFactory.getLogger(RegistryLock.class);

    private final String key;
    private final RedisLock lock;
    private final @Nullable FencedLock fencedLock;
    private final LongSupplier defaultLease;
    /** Holds per thread id; only the thread itself changes its entry. */
    private final Map<Long, Integer> holds = new ConcurrentHashMap<>();

    private volatile long lastAcquired;
    private volatile long token = -1;

    RegistryLock(LockClient client, String key, boolean fenced, LongSupplier defaultLease) {
        this.key = key;
        // Nested acquisitions use the plain view: a fenced re-entry would issue a new token.
        this.lock = client.getLock(key);
        this.fencedLock = fenced ? client.getFencedLock(key) : null;
        this.defaultLease = defaultLease;
    }

    @Override
    public void lock() {
        lockWithLease(defaultLease.getAsLong());
    }

    @Override
    public void lock(Duration ttl) {
        lockWithLease(positiveMillis(ttl, "ttl"));
    }

    private void lockWithLease(long lease) {
        if (isNested(lease)) {
            lock.lock(lease, TimeUnit.MILLISECONDS);
        } else if (fencedLock != null) {
            token = fencedLock.lockAndGetToken(lease, TimeUnit.MILLISECONDS);
        } else {
            lock.lock(lease, TimeUnit.MILLISECONDS);
        }
        acquired();
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        long lease = defaultLease.getAsLong();
        if (isNested(lease)) {
            lock.lockInterruptibly(lease, TimeUnit.MILLISECONDS);
        } else if (fencedLock != null) {
            token = fencedLock
                    .tryLockAndGetToken(RedisLock.WAIT_FOREVER, lease, TimeUnit.MILLISECONDS)
                    .orElseThrow();
        } else {
            lock.lockInterruptibly(lease, TimeUnit.MILLISECONDS);
        }
        acquired();
    }

    @Override
    public boolean tryLock() {
        try {
            return tryLock(0, defaultLease.getAsLong());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Math.max(0, unit.toMillis(time)), defaultLease.getAsLong());
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        if (waitTime == null || waitTime.isNegative()) {
            throw new IllegalArgumentException("'waitTime' must not be null or negative, was " + waitTime);
        }
        return tryLock(waitTime.toMillis(), positiveMillis(ttl, "ttl"));
    }

    private boolean tryLock(long waitMillis, long lease) throws InterruptedException {
        boolean acquired;
        if (isNested(lease)) {
            acquired = lock.tryLock(waitMillis, lease, TimeUnit.MILLISECONDS);
        } else if (fencedLock != null) {
            OptionalLong issued = fencedLock.tryLockAndGetToken(waitMillis, lease, TimeUnit.MILLISECONDS);
            acquired = issued.isPresent();
            if (acquired) {
                token = issued.getAsLong();
            }
        } else {
            acquired = lock.tryLock(waitMillis, lease, TimeUnit.MILLISECONDS);
        }
        if (acquired) {
            acquired();
        }
        return acquired;
    }

    /**
     * Tells whether the current thread already holds the lock; if so, a fixed lease is first
     * restarted on the whole hold, so that the nested unlock leaves the lease running from now.
     */
    private boolean isNested(long lease) {
        if (holds.getOrDefault(Thread.currentThread().getId(), 0) == 0) {
            return false;
        }
        if (lease != -1) {
            lock.renewLease(lease, TimeUnit.MILLISECONDS, Thread.currentThread().getId());
        }
        return true;
    }

    private void acquired() {
        holds.merge(Thread.currentThread().getId(), 1, Integer::sum);
        lastAcquired = System.currentTimeMillis();
    }

    @Override
    public void unlock() {
        long thread = Thread.currentThread().getId();
        int count = holds.getOrDefault(thread, 0);
        if (count == 0) {
            throw new IllegalStateException("You do not own lock at " + key);
        }
        if (count == 1) {
            holds.remove(thread);
        } else {
            holds.put(thread, count - 1);
        }
        try {
            lock.unlock();
        } catch (IllegalMonitorStateException ex) {
            if (count > 1) {
                // As Spring Integration's registries: only the last unlock reports the lost lease.
                logger.debug("Nested unlock of '{}' found its lease ended", key, ex);
                return;
            }
            throw (ConcurrentModificationException) new ConcurrentModificationException(
                            "Lock was released in the store due to expiration. The integrity of data protected "
                                    + "by lock '" + key + "' may have been compromised.")
                    .initCause(ex);
        } finally {
            if (count == 1 && holds.isEmpty()) {
                token = -1;
            }
        }
    }

    void checkHeld() {
        if (holds.getOrDefault(Thread.currentThread().getId(), 0) == 0
                || !lock.isHeldBy(Thread.currentThread().getId())) {
            throw new IllegalStateException(
                    "Could not renew mutex at " + key + ": the current thread does not hold it");
        }
    }

    void renew(long leaseMillis) {
        if (holds.getOrDefault(Thread.currentThread().getId(), 0) == 0) {
            throw new IllegalStateException(
                    "Could not renew mutex at " + key + ": the current thread does not hold it");
        }
        if (!lock.renewLease(
                leaseMillis, TimeUnit.MILLISECONDS, Thread.currentThread().getId())) {
            throw new IllegalStateException("Could not renew mutex at " + key + ": its lease had ended");
        }
    }

    OptionalLong fencingToken() {
        long current = token;
        return current < 0 || holds.isEmpty() ? OptionalLong.empty() : OptionalLong.of(current);
    }

    boolean isUnusedSince(long threshold) {
        long acquiredAt = lastAcquired;
        return acquiredAt > 0 && acquiredAt < threshold && holds.isEmpty();
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Conditions are not supported by lock '" + key + "'");
    }

    static long positiveMillis(@Nullable Duration duration, String argument) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("'" + argument + "' must be positive, was " + duration);
        }
        return Math.max(1, duration.toMillis());
    }

    @Override
    public String toString() {
        return "DistlockLockRegistry lock [key=" + key + ", heldHere=" + !holds.isEmpty() + "]";
    }
}
