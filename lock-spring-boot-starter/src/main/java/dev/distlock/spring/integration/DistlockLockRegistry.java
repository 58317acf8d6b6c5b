package dev.distlock.spring.integration;

import dev.distlock.core.LockClient;
import dev.distlock.spring.internal.hold.RegistryHolds;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.integration.util.CheckedCallable;
import org.springframework.integration.util.CheckedRunnable;

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
 * hold throws {@link IllegalStateException}. A key that is not a non-blank {@code String}, and a
 * {@code Duration} that is {@code null} or negative (a lease, a time to live, the wait of
 * {@code executeLocked}), fail with an {@link IllegalArgumentException} naming the argument,
 * before anything is locked; {@code tryLock(long, TimeUnit)} reads a time that is not positive as
 * {@link java.util.concurrent.locks.Lock} does (one try). Redis failures surface as
 * {@link dev.distlock.core.LockException}.
 *
 * <p><b>Observability.</b> With the starter, each thread's outermost acquisition and hold are
 * recorded like an {@code @DistributedLock} call's ({@code distlock.acquire}, {@code distlock.held},
 * ..., tagged with the lock's key); core lists the holds in the {@code distlock} endpoint and tells
 * the client's {@link dev.distlock.core.LockListener}s.
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
 *
 * <p><b>Migrating from {@code RedisLockRegistry}.</b> A registry built by
 * {@link #compatibleWithSpringIntegrationRedis(LockClient, String)} keeps its locks in the layout of
 * Spring Integration's own registry instead, so that instances of both can run side by side; see
 * there for what it keeps and what it gives up.
 */
public final class DistlockLockRegistry
        implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {

    private final LockClient client;
    /** Spring Integration's layout, or {@code null} for Distlock's. */
    private final @Nullable SpringIntegrationLayout layout;

    /** Tells the starter's observers (and, for Spring Integration's layout, the endpoint) of holds. */
    private final RegistryHolds reports;

    private final Map<String, KeyLock> locks = new ConcurrentHashMap<>();
    private final Map<String, Long> tokens = new ConcurrentHashMap<>();
    private volatile @Nullable Duration leaseTime;
    private volatile boolean fenced;

    /**
     * Creates a registry whose locks are renewed by the client's watchdog while held.
     * @param client the lock client
     */
    public DistlockLockRegistry(LockClient client) {
        this(client, null);
    }

    private DistlockLockRegistry(LockClient client, @Nullable SpringIntegrationLayout layout) {
        this.client = Objects.requireNonNull(client, "'client' must not be null");
        this.layout = layout;
        this.reports = layout == null
                ? RegistryHolds.forCoreLocks(client, "DistlockLockRegistry lock")
                : RegistryHolds.forStringKeys(
                        client,
                        "DistlockLockRegistry lock in the RedisLockRegistry layout (registry key '" + layout.registryKey
                                + "')");
    }

    /**
     * Creates a registry whose locks are taken, renewed and released exactly as Spring Integration
     * 7.1's {@code RedisLockRegistry} does under the same registry key, with either of its lock
     * types (spin and pub/sub), so that instances on that registry and instances on this one
     * exclude each other during a rolling migration, and {@code LockRegistryLeaderInitiator} never
     * elects a leader on each side.
     *
     * <p>The layout: a string key {@code <registryKey>:<lockKey>} (the client's key prefix does not
     * apply) whose value is this registry's id, the same for all its threads (a local lock per key
     * keeps them apart, as there). Taking a lock again restarts its expiry; a release deletes the
     * key only while it holds this registry's id and publishes the key on
     * {@code <registryKey>-channel:<registryKey>:<lockKey>}, which wakes the pub/sub waiters of
     * either registry. Waiters here also try again every 100 ms, as spin locks publish nothing.
     *
     * <p>Kept from Distlock: unless {@link #setLeaseTime(Duration)} is set, the watchdog renews a held
     * lock, whose key expires one watchdog timeout after its process died (instead of
     * {@code expireAfter}, 60 s by default); the argument checks and errors described above; under
     * the Redis key {@code <registryKey>:<lockKey>} as the lock name, the metrics and observations,
     * the client's listeners (a renewal or an unlock that finds the key gone or taken is a lost
     * lease) and the {@code distlock} endpoint's list of held locks, which the starter records itself
     * since core keeps no hold of such a key. Not available in this layout: fencing
     * ({@link #setFenced(boolean)} fails), exclusion of Distlock-layout locks and Redisson code of the
     * same name, and the endpoint's lock page and force-unlock, which read and release Distlock's
     * layout only. Switch to
     * {@link #DistlockLockRegistry(LockClient)} once no instance runs {@code RedisLockRegistry}, in
     * a deploy where no two versions lock at once.
     * @param client the lock client
     * @param registryKey the {@code registryKey} the {@code RedisLockRegistry} instances were built with
     * @return the registry
     * @throws IllegalArgumentException if the registry key is blank
     */
    public static DistlockLockRegistry compatibleWithSpringIntegrationRedis(LockClient client, String registryKey) {
        Objects.requireNonNull(client, "'client' must not be null");
        Objects.requireNonNull(registryKey, "'registryKey' must not be null");
        if (registryKey.isBlank()) {
            throw new IllegalArgumentException("'registryKey' must not be blank");
        }
        return new DistlockLockRegistry(client, new SpringIntegrationLayout(client, registryKey));
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
        if (fenced && layout != null) {
            throw new IllegalStateException("Locks in the layout of Spring Integration's RedisLockRegistry "
                    + "(registry key '" + layout.registryKey + "') cannot be fenced: the layout has no token");
        }
        this.fenced = fenced;
    }

    @Override
    public DistributedLock obtain(Object lockKey) {
        return locks.computeIfAbsent(key(lockKey, "lockKey"), this::newLock);
    }

    private KeyLock newLock(String key) {
        SpringIntegrationLayout current = layout;
        if (current != null) {
            return new SpringIntegrationRedisLock(current, key, this::defaultLease, reports);
        }
        return new RegistryLock(client, key, fenced, this::defaultLease, tokens, reports);
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
        KeyLock lock = (KeyLock) obtain(lockKey);
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
        ((KeyLock) obtain(lockKey)).renew(lease);
    }

    /**
     * Runs the task under the lock if it can be taken within {@code waitLockDuration}, as
     * {@link org.springframework.integration.support.locks.LockRegistry}'s default does, after checking
     * the wait.
     * @param lockKey the key
     * @param waitLockDuration how long to wait; zero tries once
     * @param runnable the task
     * @param <E> what the task throws
     * @throws E if the task fails
     * @throws InterruptedException if interrupted while waiting
     * @throws TimeoutException if the lock could not be taken in time
     * @throws IllegalArgumentException if the wait is {@code null} or negative
     */
    @Override
    public <E extends Throwable> void executeLocked(
            Object lockKey, Duration waitLockDuration, CheckedRunnable<E> runnable)
            throws E, InterruptedException, TimeoutException {
        RenewableLockRegistry.super.executeLocked(lockKey, checkedWait(waitLockDuration), runnable);
    }

    /**
     * Calls the task under the lock if it can be taken within {@code waitLockDuration}, as
     * {@link org.springframework.integration.support.locks.LockRegistry}'s default does, after checking
     * the wait.
     * @param lockKey the key
     * @param waitLockDuration how long to wait; zero tries once
     * @param callable the task
     * @param <T> the result type
     * @param <E> what the task throws
     * @return the task's result
     * @throws E if the task fails
     * @throws InterruptedException if interrupted while waiting
     * @throws TimeoutException if the lock could not be taken in time
     * @throws IllegalArgumentException if the wait is {@code null} or negative
     */
    @Override
    public <T, E extends Throwable> T executeLocked(
            Object lockKey, Duration waitLockDuration, CheckedCallable<T, E> callable)
            throws E, InterruptedException, TimeoutException {
        return RenewableLockRegistry.super.executeLocked(lockKey, checkedWait(waitLockDuration), callable);
    }

    private static Duration checkedWait(@Nullable Duration waitLockDuration) {
        if (waitLockDuration == null || waitLockDuration.isNegative()) {
            throw new IllegalArgumentException(
                    "'waitLockDuration' must not be null or negative, was " + waitLockDuration);
        }
        return waitLockDuration;
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
        return "DistlockLockRegistry[client=" + client.getId()
                + (layout != null ? ", registryKey=" + layout.registryKey : "") + ", locks=" + locks.size() + "]";
    }
}
