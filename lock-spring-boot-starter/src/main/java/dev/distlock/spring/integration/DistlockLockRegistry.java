package dev.distlock.spring.integration;

import dev.distlock.core.LockClient;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * Spring Integration's lock registry on Distlock: the lock of aggregators, idempotent receivers,
 * {@code LockRequestHandlerAdvice} and {@code LockRegistryLeaderInitiator}.
 *
 * <p><b>Locks.</b> {@link #obtain(Object)} takes a {@code String} key, the Distlock lock name (the
 * client's key prefix applies; no registry key is added), and returns the same
 * {@link DistributedLock} for the same key until {@link #expireUnusedOlderThan(long)} drops it. A
 * lock is held by the thread that took it and is reentrant; it excludes every other thread and
 * process on the same name, {@code @DistributedLock} and Redisson code included. Waiters are woken
 * when the lock is released (no polling). Two registries on one {@link LockClient} are one process:
 * a thread that holds a key through one holds it through the other.
 *
 * <p><b>Leases.</b> By default ({@link #setLeaseTime(Duration)} unset) a lock is renewed by the
 * client's watchdog for as long as it is held, and lapses one watchdog timeout after its process
 * dies. With a lease time set, and for {@link DistributedLock#lock(Duration)} and
 * {@link DistributedLock#tryLock(Duration, Duration)}, the lease is fixed: the lock lapses when it
 * runs out unless the holder takes it again (which restarts the lease) or calls
 * {@link #renewLock(Object, Duration)}.
 *
 * <p><b>Errors, as Spring Integration's registries.</b> {@code unlock()} by a thread that does not
 * hold the lock throws {@link IllegalStateException} ("You do not own lock at ..."); the last
 * {@code unlock()} of a lock whose lease ran out throws
 * {@link java.util.ConcurrentModificationException}; {@code renewLock} of a lock the thread does not
 * hold throws {@link IllegalStateException}. A key that is not a non-blank {@code String} and a
 * negative time fail with an {@link IllegalArgumentException} naming the argument. Redis failures
 * surface as {@link dev.distlock.core.LockException}.
 *
 * <p><b>Fencing.</b> With {@link #setFenced(boolean)}, each lock is a Distlock fenced lock and
 * {@link #getFencingToken(Object)} returns the token of this process's hold, e.g. for the leader
 * elected by {@code LockRegistryLeaderInitiator} to pass along with its writes: its candidate's
 * {@code onGranted(context)} reads {@code registry.getFencingToken(context.getRole())}. A holder
 * whose lease ran out and that takes the lock again (a leader elected again) gets a new token. Each
 * fenced name keeps a counter key in Redis, so fence a registry of few names (leader roles), not
 * one keyed by message ids.
 *
 * <p><b>Leader election.</b> {@code LockRegistryLeaderInitiator} takes its role's lock again at
 * every heartbeat (500 ms by default) and gives up leadership when that fails. With the watchdog
 * lease, a leader whose process dies is replaced one watchdog timeout later at most; with
 * {@link #setLeaseTime(Duration)}, the lease must be longer than the heartbeat, or the leader loses
 * its lock between two heartbeats.
 */
public final class DistlockLockRegistry
        implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {

    private final LockClient client;
    private final Map<String, RegistryLock> locks = new ConcurrentHashMap<>();
    private final Map<String, Long> tokens = new ConcurrentHashMap<>();
    private volatile @Nullable Duration leaseTime;
    private volatile boolean fenced;

    /**
     * Creates a registry whose locks are renewed by the client's watchdog while held.
     * @param client the lock client
     */
    public DistlockLockRegistry(LockClient client) {
        this.client = Objects.requireNonNull(client, "'client' must not be null");
    }

    /**
     * Sets the lease of {@code lock()}, {@code lockInterruptibly()} and {@code tryLock(...)} without a
     * time to live, and of {@link #renewLock(Object)}.
     * @param leaseTime a positive lease, or {@code null} for the watchdog (the default)
     */
    public void setLeaseTime(@Nullable Duration leaseTime) {
        if (leaseTime != null && (leaseTime.isNegative() || leaseTime.isZero())) {
            throw new IllegalArgumentException(
                    "'leaseTime' must be positive, or null for the watchdog; was " + leaseTime);
        }
        this.leaseTime = leaseTime;
    }

    /**
     * Sets whether locks obtained from now on are fenced locks, whose holds carry a fencing token.
     * @param fenced whether to fence
     */
    public void setFenced(boolean fenced) {
        this.fenced = fenced;
    }

    @Override
    public DistributedLock obtain(Object lockKey) {
        return locks.computeIfAbsent(key(lockKey, "lockKey"), this::newLock);
    }

    private RegistryLock newLock(String key) {
        return new RegistryLock(client, key, fenced, this::defaultLease, tokens);
    }

    /** @return the default lease in ms, or -1 for the watchdog */
    private long defaultLease() {
        Duration lease = leaseTime;
        return lease == null ? -1 : lease.toMillis();
    }

    /**
     * Drops the locks last acquired more than {@code age} ms ago that no thread of this process
     * holds. Locks never acquired stay, as in Spring Integration's registries. A dropped lock keeps
     * working for whoever still uses it; {@link #obtain(Object)} then returns a new one.
     * @param age in milliseconds; negative drops every lock not held
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.currentTimeMillis();
        locks.values().removeIf(lock -> lock.isUnusedSince(now - age));
    }

    /**
     * Confirms that the current thread still holds the lock and gives it the registry's lease from
     * now; with the watchdog lease (the default) the watchdog renews it anyway, and this only checks
     * the lock is still held.
     * @param lockKey the key
     * @throws IllegalStateException if the current thread does not hold the lock, or its lease ended
     */
    @Override
    public void renewLock(Object lockKey) {
        RegistryLock lock = (RegistryLock) obtain(lockKey);
        long lease = defaultLease();
        if (lease == -1) {
            lock.checkHeld();
        } else {
            lock.renew(lease);
        }
    }

    /**
     * Gives the current thread's hold of the lock a lease of {@code ttl} from now (after which it
     * lapses unless renewed again: a watchdog-renewed hold becomes a fixed one).
     * @param lockKey the key
     * @param ttl the new lease, positive
     * @throws IllegalStateException if the current thread does not hold the lock, or its lease ended
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        long lease = RegistryLock.positiveMillis(ttl, "ttl");
        ((RegistryLock) obtain(lockKey)).renew(lease);
    }

    /**
     * Returns the fencing token of this process's hold of a lock, for a registry that
     * {@linkplain #setFenced(boolean) fences}: the token issued when the holder took the lock
     * (re-entries keep it). Readable from any thread, so that a leader's workers can fence their
     * writes with the token of the leader's hold.
     * @param lockKey the key
     * @return the token, or empty when no thread of this process holds the lock or it is not fenced
     */
    public OptionalLong getFencingToken(Object lockKey) {
        Long token = tokens.get(key(lockKey, "lockKey"));
        return token == null ? OptionalLong.empty() : OptionalLong.of(token);
    }

    private static String key(@Nullable Object lockKey, String argument) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("'" + argument + "' must be a String, was "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()));
        }
        if (key.isBlank()) {
            throw new IllegalArgumentException("'" + argument + "' must not be blank");
        }
        return key;
    }

    @Override
    public String toString() {
        return "DistlockLockRegistry[client=" + client.getId() + ", locks=" + locks.size() + "]";
    }
}
