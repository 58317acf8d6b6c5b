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

/**
 * One key's lock of a {@link DistlockLockRegistry}. Every acquisition, nested ones too, goes to
 * Redis (a nested one restarts a fixed lease, as Spring Integration's registries do); the counts
 * kept here only answer, without a round trip, whether a thread holds the lock at all.
 *
 * <p>A thread whose hold lost its lease and that takes the lock again starts a new hold, with a new
 * fencing token: the lost one is forgotten rather than counted as an outer hold. Leader election
 * relies on this: a leader that lost its lease stops leading without unlocking, and when it is
 * elected again its token must be newer than the leader's in between.
 */
final class RegistryLock implements KeyLock {

    private static final Logger logger = LoggerFactory.getLogger(RegistryLock.class);

    private final String key;
    private final RedisLock lock;
    private final @Nullable FencedLock fencedLock;
    private final LongSupplier defaultLease;
    /** The registry's tokens of held fenced locks by key: they outlive a handle the registry dropped. */
    private final Map<String, Long> tokens;
    /** Holds per thread id; only the thread itself changes its entry. */
    private final Map<Long, Integer> holds = new ConcurrentHashMap<>();

    private volatile long lastAcquired;
    private volatile long token = -1;

    RegistryLock(LockClient client, String key, boolean fenced, LongSupplier defaultLease, Map<String, Long> tokens) {
        this.key = key;
        // Nested acquisitions use the plain view: a fenced re-entry would issue a new token.
        this.lock = client.getLock(key);
        this.fencedLock = fenced ? client.getFencedLock(key) : null;
        this.defaultLease = defaultLease;
        this.tokens = tokens;
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
        boolean nested = isNested(lease);
        if (nested || fencedLock == null) {
            lock.lock(lease, TimeUnit.MILLISECONDS);
        } else {
            issued(fencedLock.lockAndGetToken(lease, TimeUnit.MILLISECONDS));
        }
        acquired(nested);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        long lease = defaultLease.getAsLong();
        boolean nested = isNested(lease);
        if (nested || fencedLock == null) {
            lock.lockInterruptibly(lease, TimeUnit.MILLISECONDS);
        } else {
            issued(fencedLock
                    .tryLockAndGetToken(RedisLock.WAIT_FOREVER, lease, TimeUnit.MILLISECONDS)
                    .orElseThrow());
        }
        acquired(nested);
    }

    @Override
    public long defaultLeaseMillis() {
        return defaultLease.getAsLong();
    }

    @Override
    public boolean tryLockFor(long waitMillis, long lease) throws InterruptedException {
        boolean nested = isNested(lease);
        boolean acquired;
        if (nested || fencedLock == null) {
            acquired = lock.tryLock(waitMillis, lease, TimeUnit.MILLISECONDS);
        } else {
            OptionalLong issued = fencedLock.tryLockAndGetToken(waitMillis, lease, TimeUnit.MILLISECONDS);
            acquired = issued.isPresent();
            if (acquired) {
                issued(issued.getAsLong());
            }
        }
        if (acquired) {
            acquired(nested);
        }
        return acquired;
    }

    /**
     * Tells whether the current thread holds the lock in Redis already; if so, a fixed lease is
     * first restarted on the whole hold, so that the nested unlock leaves the lease running from
     * now. A thread that counts holds here but whose lease ran out makes a new acquisition.
     */
    private boolean isNested(long lease) {
        long thread = Thread.currentThread().getId();
        if (holds.getOrDefault(thread, 0) == 0) {
            return false;
        }
        boolean held = lease != -1 ? lock.renewLease(lease, TimeUnit.MILLISECONDS, thread) : lock.isHeldBy(thread);
        if (!held) {
            logger.debug("Lock '{}' lost its lease under thread {}: taking it anew", key, thread);
        }
        return held;
    }

    private void issued(long issuedToken) {
        token = issuedToken;
        tokens.put(key, issuedToken);
    }

    /** Counts an acquisition; a new one (not nested) replaces the count of a hold whose lease ran out. */
    private void acquired(boolean nested) {
        long thread = Thread.currentThread().getId();
        if (nested) {
            holds.merge(thread, 1, Integer::sum);
        } else {
            holds.put(thread, 1);
        }
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
                tokens.remove(key, token);
                token = -1;
            }
        }
    }

    @Override
    public void checkHeld() {
        if (holds.getOrDefault(Thread.currentThread().getId(), 0) == 0
                || !lock.isHeldBy(Thread.currentThread().getId())) {
            throw new IllegalStateException(
                    "Could not renew mutex at " + key + ": the current thread does not hold it");
        }
    }

    @Override
    public void renew(long leaseMillis) {
        if (holds.getOrDefault(Thread.currentThread().getId(), 0) == 0) {
            throw new IllegalStateException(
                    "Could not renew mutex at " + key + ": the current thread does not hold it");
        }
        if (!lock.renewLease(
                leaseMillis, TimeUnit.MILLISECONDS, Thread.currentThread().getId())) {
            throw new IllegalStateException("Could not renew mutex at " + key + ": its lease had ended");
        }
    }

    @Override
    public boolean isUnusedSince(long threshold) {
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
