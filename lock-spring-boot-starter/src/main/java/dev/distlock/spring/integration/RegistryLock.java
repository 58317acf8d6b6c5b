package dev.distlock.spring.integration;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockListener;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.internal.hold.RegistryHolds;
import dev.distlock.spring.internal.hold.RegistryHolds.RegistryHold;
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
 *
 * <p>Core lists the holds and tells the client's listeners; each thread's outermost acquisition and
 * hold are also told to the starter's observers (metrics, observations) through {@link RegistryHolds}.
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
    /** What the observers were told of each thread's hold; only the thread itself changes its entry. */
    private final Map<Long, RegistryHold> observed = new ConcurrentHashMap<>();

    private final RegistryHolds reports;

    private volatile long lastAcquired;
    private volatile long token = -1;

    RegistryLock(
            LockClient client,
            String key,
            boolean fenced,
            LongSupplier defaultLease,
            Map<String, Long> tokens,
            RegistryHolds reports) {
        this.key = key;
        this.reports = reports;
        // A loss found by the watchdog reaches the observers through the views' listener.
        LockListener losses = new LockListener() {
            @Override
            public void onLeaseLost(String lockName, long ownerId) {
                RegistryHold hold = observed.get(ownerId);
                if (hold != null) {
                    hold.leaseLost();
                }
            }
        };
        // Nested acquisitions use the plain view: a fenced re-entry would issue a new token.
        this.lock = client.getLock(key).withListener(losses);
        this.fencedLock = fenced ? client.getFencedLock(key).withListener(losses) : null;
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
        RegistryHolds.Attempt attempt = nested ? null : reports.started(key, lease);
        try {
            if (nested || fencedLock == null) {
                lock.lock(lease, TimeUnit.MILLISECONDS);
            } else {
                issued(fencedLock.lockAndGetToken(lease, TimeUnit.MILLISECONDS));
            }
        } catch (RuntimeException ex) {
            failed(attempt, ex);
            throw ex;
        }
        acquired(nested, attempt);
    }

    private static void failed(RegistryHolds.@Nullable Attempt attempt, Throwable error) {
        if (attempt != null) {
            attempt.failed(error);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        long lease = defaultLease.getAsLong();
        boolean nested = isNested(lease);
        RegistryHolds.Attempt attempt = nested ? null : reports.started(key, lease);
        try {
            if (nested || fencedLock == null) {
                lock.lockInterruptibly(lease, TimeUnit.MILLISECONDS);
            } else {
                issued(fencedLock
                        .tryLockAndGetToken(RedisLock.WAIT_FOREVER, lease, TimeUnit.MILLISECONDS)
                        .orElseThrow());
            }
        } catch (InterruptedException | RuntimeException ex) {
            failed(attempt, ex);
            throw ex;
        }
        acquired(nested, attempt);
    }

    @Override
    public long defaultLeaseMillis() {
        return defaultLease.getAsLong();
    }

    @Override
    public boolean tryLockFor(long waitMillis, long lease) throws InterruptedException {
        boolean nested = isNested(lease);
        RegistryHolds.Attempt attempt = nested ? null : reports.started(key, lease);
        boolean acquired;
        try {
            if (nested || fencedLock == null) {
                acquired = lock.tryLock(waitMillis, lease, TimeUnit.MILLISECONDS);
            } else {
                OptionalLong issued = fencedLock.tryLockAndGetToken(waitMillis, lease, TimeUnit.MILLISECONDS);
                acquired = issued.isPresent();
                if (acquired) {
                    issued(issued.getAsLong());
                }
            }
        } catch (InterruptedException | RuntimeException ex) {
            failed(attempt, ex);
            throw ex;
        }
        if (acquired) {
            acquired(nested, attempt);
        } else if (attempt != null) {
            attempt.timedOut();
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
    private void acquired(boolean nested, RegistryHolds.@Nullable Attempt attempt) {
        long thread = Thread.currentThread().getId();
        if (nested) {
            holds.merge(thread, 1, Integer::sum);
        } else {
            holds.put(thread, 1);
        }
        if (attempt != null) {
            RegistryHold lost = observed.put(thread, attempt.acquired(key, () -> holds.getOrDefault(thread, 0)));
            if (lost != null) {
                // The hold this one replaces lost its lease without an unlock.
                lost.leaseLost();
                lost.ended();
            }
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
        RegistryHold observation = count == 1 ? observed.remove(thread) : null;
        try {
            lock.unlock();
            if (observation != null) {
                observation.released();
            }
        } catch (IllegalMonitorStateException ex) {
            if (count > 1) {
                // As Spring Integration's registries: only the last unlock reports the lost lease.
                logger.debug("Nested unlock of '{}' found its lease ended", key, ex);
                return;
            }
            if (observation != null) {
                observation.leaseLost();
            }
            throw (ConcurrentModificationException) new ConcurrentModificationException(
                            "Lock was released in the store due to expiration. The integrity of data protected "
                                    + "by lock '" + key + "' may have been compromised.")
                    .initCause(ex);
        } finally {
            if (observation != null) {
                // After a release, a no-op; after a loss or a failed release, the hold ends here.
                observation.ended();
            }
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
