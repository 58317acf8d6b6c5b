package dev.distlock.core.internal.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockException;
import dev.distlock.core.LockListener;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.pubsub.ChannelWaiters;
import dev.distlock.core.internal.script.LuaScript;

/**
 * The part every lock kind shares: argument checks, the wait loop, hold bookkeeping, watchdog
 * registration and listener calls. A kind supplies its scripts through the abstract hooks.
 *
 * <p>The wait loop: try; if refused, join the kind's wake-up channel, then alternate between trying
 * and parking until a wake-up arrives or the holder's remaining lease passes, whichever is first,
 * within the caller's wait.
 */
public abstract class AbstractRedisLock implements RedisLock, Cloneable {

    /** Bound on releasing holds whose acquire replies were lost (each such reply adds at most one). */
    private static final int MAX_PHANTOM_HOLDS = 16;

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(AbstractRedisLock.class);

    /** Longest park when the holder's lease is unknown (no TTL on the key). */
    private static final long UNKNOWN_TTL_PARK_MILLIS = 1000;

    protected final LockEngine engine;
    protected final String name;
    protected final String key;
    /** Listeners of this view ({@link #withListener}), each wrapped so that it never throws. */
    private volatile List<LockListener> viewListeners = List.of();

    protected AbstractRedisLock(LockEngine engine, String name) {
        this.engine = engine;
        this.name = Arguments.requireName(name);
        this.key = engine.key(name);
    }

    /** @return kind name for diagnostics, e.g. {@code reentrant} */
    protected abstract String kind();

    /**
     * Runs the acquire script once.
     * @param leaseMillis lease in ms (never -1: the watchdog lease is substituted)
     * @param ownerId owner
     * @return {@code null} when acquired, else the ms to wait before trying again ({@code -1} unknown)
     */
    protected abstract CompletableFuture<@Nullable Long> acquire(long leaseMillis, long ownerId);

    /**
     * Runs the acquire script once, knowing how long the caller is still prepared to wait. Kinds
     * that queue waiters (fair lock) or record waiting writers override this; the default ignores
     * the wait.
     * @param leaseMillis lease in ms (never -1: the watchdog lease is substituted)
     * @param ownerId owner
     * @param waitMillis the caller's remaining wait in ms: {@code 0} when it will not wait (do not
     *     queue it), {@code -1} when it waits as long as needed
     * @return {@code null} when acquired, else the ms to wait before trying again ({@code -1} unknown)
     */
    protected CompletableFuture<@Nullable Long> acquire(long leaseMillis, long ownerId, long waitMillis) {
        return acquire(leaseMillis, ownerId);
    }

    /**
     * Runs the acquire script once, also knowing whether the caller is subscribed and parked
     * between attempts. Kinds with targeted wake-ups register the waiting client here.
     * @param leaseMillis lease in ms (never -1: the watchdog lease is substituted)
     * @param ownerId owner
     * @param waitMillis as {@link #acquire(long, long, long)}
     * @param waiting the local waiters the caller has joined, or {@code null} on the first attempt
     * @return {@code null} when acquired, else the ms to wait before trying again ({@code -1} unknown)
     */
    protected CompletableFuture<@Nullable Long> acquire(long leaseMillis, long ownerId, long waitMillis,
            @Nullable ChannelWaiters waiting) {
        return acquire(leaseMillis, ownerId, waitMillis);
    }

    /**
     * Returns a second channel that wakes this client's waiters only, for kinds whose release
     * wakes one waiting client rather than all.
     * @param ownerId owner
     * @return the channel, or {@code null} when the kind only broadcasts
     */
    protected @Nullable String wakeAlias(long ownerId) {
        return null;
    }

    /**
     * Returns what to do when a targeted wake-up reaches this client after its waiters left.
     * @return the action, or {@code null}
     */
    protected @Nullable Runnable unclaimedWake() {
        return null;
    }

    /**
     * Returns what to do when the last local waiter of this kind's wake channel left, for kinds
     * that list waiting clients in Redis. It runs while no new local waiter can join, so what it
     * sends reaches Redis before anything a later waiter sends.
     * @return the action, or {@code null}
     */
    protected @Nullable Runnable lastWaiterLeft() {
        return null;
    }

    /**
     * Runs the release script once.
     * @param leaseMillis lease to keep while holds remain
     * @param ownerId owner
     * @return {@code null} when the owner held nothing, {@code 0} when holds remain, {@code 1} when released
     */
    protected abstract CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId);

    /**
     * Runs the release script once for a given unlock request. Kinds whose release script keeps
     * an unlock latch override this and {@link #idempotentRelease()}, so a release whose reply was
     * lost can be retried safely; others ignore the request id.
     * @param leaseMillis lease to keep while holds remain
     * @param ownerId owner
     * @param requestId unique id of this unlock call
     * @return as {@link #release(long, long)}
     */
    protected CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId, String requestId) {
        return release(leaseMillis, ownerId);
    }

    /** @return whether a release with the same request id may be retried (it replays its first outcome) */
    protected boolean idempotentRelease() {
        return false;
    }

    /** @return the script that renews this kind's holds (batched by the watchdog) */
    protected abstract LuaScript renewScript();

    /**
     * Returns the channel whose messages wake this owner.
     * @param ownerId owner
     * @return channel name
     */
    protected abstract String wakeChannel(long ownerId);

    /** @return deletes the lock whoever holds it, waking waiters */
    protected abstract CompletableFuture<Boolean> forceRelease();

    /**
     * Called when an owner stops waiting without the lock (timeout, interrupt); kinds that queue
     * waiters remove it here.
     * @param ownerId owner
     */
    protected void abandonWait(long ownerId) {
    }

    /**
     * Returns the owner field of this kind.
     * @param ownerId owner
     * @return field in the lock hash
     */
    protected String ownerField(long ownerId) {
        return engine.ownerField(ownerId);
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public RedisLock withListener(LockListener listener) {
        Objects.requireNonNull(listener, "'listener' must not be null");
        AbstractRedisLock view;
        try {
            // A shallow copy: a lock object is a stateless view of Redis state plus engine-wide bookkeeping.
            view = (AbstractRedisLock) clone();
        }
        catch (CloneNotSupportedException ex) {
            throw new IllegalStateException(ex);
        }
        List<LockListener> listeners = new ArrayList<>(viewListeners);
        listeners.add(new SafeLockListener(listener));
        view.viewListeners = List.copyOf(listeners);
        return view;
    }

    @Override
    public void lock() {
        lock(WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        long lease = Arguments.leaseMillis(leaseTime, unit);
        try {
            acquire(WAIT_FOREVER, lease, currentOwner(), false);
        }
        catch (InterruptedException ex) {
            throw new IllegalStateException("uninterruptible acquisition was interrupted", ex);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        lockInterruptibly(WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    @Override
    public void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        acquire(WAIT_FOREVER, Arguments.leaseMillis(leaseTime, unit), currentOwner(), true);
    }

    /**
     * Acquires the lock if it is free now, with the watchdog lease. Like
     * {@link java.util.concurrent.locks.Lock#tryLock()} it ignores the thread's interrupt flag: it
     * never waits, so it acquires a free lock and leaves the flag set.
     * @return whether the lock was acquired
     */
    @Override
    public boolean tryLock() {
        try {
            return acquire(0, LockEngine.WATCHDOG, currentOwner(), false);
        }
        catch (InterruptedException ex) {
            // Not thrown when uninterruptible; kept for the checked signature.
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(time, WATCHDOG_LEASE, unit);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return tryLock(waitTime, leaseTime, unit, currentOwner());
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit, long ownerId) throws InterruptedException {
        long wait = Arguments.waitMillis(waitTime, unit);
        return acquire(wait, Arguments.leaseMillis(leaseTime, unit), ownerId, true);
    }

    /**
     * Acquires for an owner, waiting up to {@code waitMillis} ({@code -1}: forever).
     * @param waitMillis wait in ms
     * @param leaseMillis lease in ms, or -1 for the watchdog
     * @param ownerId owner
     * @param interruptible whether an interrupt aborts the wait (else it is restored afterwards)
     * @return whether acquired
     * @throws InterruptedException if interruptible and interrupted
     */
    protected boolean acquire(long waitMillis, long leaseMillis, long ownerId, boolean interruptible)
            throws InterruptedException {
        engine.ensureOpen(name);
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + name + "'");
        }
        long start = System.nanoTime();
        ReplicaSync sync = new ReplicaSync(engine, name, key);
        if (firstAttempt(leaseMillis, ownerId, waitMillis, sync) == null) {
            return acquired(leaseMillis, ownerId, start);
        }
        if (waitMillis == 0) {
            // Nothing was queued for a caller that does not wait, so there is nothing to abandon.
            return gaveUp(ownerId, start, false, sync);
        }
        long deadline = waitMillis < 0 ? Long.MAX_VALUE : start + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        ChannelWaiters waiters = null;
        boolean interrupted = false;
        try {
            while (true) {
                if (waiters == null) {
                    waiters = join(ownerId);
                    if (waiters != null) {
                        try {
                            awaitSubscribed(waiters, deadline);
                        }
                        catch (InterruptedException ex) {
                            // Same rules as an interrupt while parked: a queued waiter must leave the queue.
                            if (interruptible) {
                                abandonWait(ownerId);
                                throw ex;
                            }
                            interrupted = true;
                        }
                    }
                }
                long left = waitMillis < 0 ? WAIT_FOREVER
                        : Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
                Long ttl = attemptWhileWaiting(leaseMillis, ownerId, left, waiters, sync);
                if (ttl == null) {
                    return acquired(leaseMillis, ownerId, start);
                }
                long remaining = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (remaining <= 0) {
                    return gaveUp(ownerId, start, true, sync);
                }
                long park = ttl < 0 ? Math.min(UNKNOWN_TTL_PARK_MILLIS, remaining) : Math.min(Math.max(ttl, 1), remaining);
                if (waiters == null) {
                    // Not subscribed: no wake-up can come, so park no longer than the unknown-TTL bound.
                    park = Math.min(park, UNKNOWN_TTL_PARK_MILLIS);
                }
                try {
                    if (waiters != null) {
                        waiters.await(park);
                    }
                    else {
                        TimeUnit.MILLISECONDS.sleep(park);
                    }
                }
                catch (InterruptedException ex) {
                    if (interruptible) {
                        abandonWait(ownerId);
                        throw ex;
                    }
                    interrupted = true;
                }
                engine.ensureOpen(name);
            }
        }
        finally {
            if (waiters != null) {
                waiters.leave();
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Joins the kind's wake-up channel.
     * @return the waiters, or {@code null} when the pub/sub connection cannot be opened now: the
     *     caller keeps waiting (bounded parks) and joins on a later round, as through any outage
     * @throws LockException if the client was closed
     */
    private @Nullable ChannelWaiters join(long ownerId) {
        try {
            return engine.subscriptions().join(wakeChannel(ownerId), wakeAlias(ownerId), unclaimedWake(), lastWaiterLeft());
        }
        catch (RuntimeException ex) {
            // close() between the first attempt and here: the registry refuses new waiters.
            engine.failIfClosed(name, ex);
            log.debug("Cannot subscribe to the wake-ups of lock '{}' now; waiting without them", name, ex);
            return null;
        }
    }

    /**
     * The first attempt of a call, which fails the call when Redis does not answer. The script may
     * still have run and queued this caller (a fair queue entry, a waiting writer's claim); withdraw
     * that on the same connection, where it runs after the attempt, so nobody else waits behind a
     * caller that has gone.
     */
    private @Nullable Long firstAttempt(long leaseMillis, long ownerId, long waitMillis, ReplicaSync sync) {
        try {
            return attempt(leaseMillis, ownerId, waitMillis, null, sync);
        }
        catch (LockException ex) {
            if (waitMillis != 0 && !engine.isClosed()) {
                abandonWait(ownerId);
            }
            throw ex;
        }
    }

    private void awaitSubscribed(ChannelWaiters waiters, long deadline) throws InterruptedException {
        long bound = Math.min(engine.options().commandTimeout().toNanos(), Math.max(0, deadline - System.nanoTime()));
        try {
            waiters.ready().get(bound, TimeUnit.NANOSECONDS);
        }
        catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
            // Not fatal: parking is bounded by the holder's TTL, so we still notice the release.
        }
    }

    private @Nullable Long attempt(long leaseMillis, long ownerId, long waitMillis, @Nullable ChannelWaiters waiting,
            ReplicaSync sync) {
        long lease = leaseMillis == LockEngine.WATCHDOG ? engine.watchdogMillis() : leaseMillis;
        Long ttl = engine.await(engine.call(() -> sync.acquire(() -> acquire(lease, ownerId, waitMillis, waiting))),
                name, "acquire");
        // Replica-sync guard (off unless configured): a grant that too few replicas saw is undone.
        return ttl != null ? sync.refused(ttl) : sync.confirm(() -> release(lease, ownerId));
    }

    private @Nullable Long attemptWhileWaiting(long leaseMillis, long ownerId, long waitMillis,
            @Nullable ChannelWaiters waiting,
            ReplicaSync sync) {
        try {
            return attempt(leaseMillis, ownerId, waitMillis, waiting, sync);
        }
        catch (LockException ex) {
            engine.ensureOpen(name);
            // A waiter keeps waiting through an outage and retries once Redis is back.
            return UNKNOWN_TTL_PARK_MILLIS;
        }
    }

    private boolean acquired(long leaseMillis, long ownerId, long start) {
        // Granted as close() ran: nothing will renew or release the hold, which expires with its
        // lease like every hold at close, so report the close rather than a hold the caller cannot use.
        engine.ensureOpen(name);
        List<LockListener> listeners = viewListeners;
        engine.holds().acquired(name, kind(), key, ownerId, ownerField(ownerId), renewScript(), leaseMillis, listeners);
        long waitNanos = System.nanoTime() - start;
        engine.listener().onAcquired(name, ownerId, waitNanos);
        listeners.forEach(listener -> listener.onAcquired(name, ownerId, waitNanos));
        return true;
    }

    private boolean gaveUp(long ownerId, long start, boolean waited, ReplicaSync sync) {
        if (waited) {
            abandonWait(ownerId);
        }
        sync.throwIfShortfall();
        long waitNanos = System.nanoTime() - start;
        engine.listener().onTimeout(name, ownerId, waitNanos);
        viewListeners.forEach(listener -> listener.onTimeout(name, ownerId, waitNanos));
        return false;
    }

    @Override
    public void unlock() {
        unlock(currentOwner());
    }

    @Override
    public void unlock(long ownerId) {
        Hold hold = engine.holds().get(key, ownerField(ownerId));
        long lease = hold == null ? engine.watchdogMillis() : hold.leaseAfterRelease(engine.watchdogMillis());
        if (hold != null) {
            engine.holds().releasing(hold);
            if (hold.count() <= 1) {
                engine.listener().onReleasing(name, ownerId);
                viewListeners.forEach(listener -> listener.onReleasing(name, ownerId));
            }
        }
        Long result;
        try {
            result = releaseOnce(lease, ownerId);
        }
        catch (LockException ex) {
            if (hold != null) {
                // The release may or may not have run, but the caller is done with this acquisition:
                // give it back here, so that the owner's last unlock finds (and releases) any hold
                // Redis still counts instead of leaving it to the watchdog for good.
                if (hold.released() <= 0) {
                    // Stop renewing: if the release did not run, the lock expires within one lease.
                    engine.holds().remove(hold);
                }
                else {
                    // Outer holds remain: keep renewing them.
                    hold.releasing(false);
                }
            }
            throw ex;
        }
        if (result == null) {
            if (hold != null && engine.holds().remove(hold)) {
                engine.leaseLost(hold);
                throw new IllegalMonitorStateException("Cannot unlock lock '" + name + "': the lease of "
                        + describeOwner(ownerId) + " expired before unlock, or the lock was force-unlocked");
            }
            throw new IllegalMonitorStateException(
                    "Cannot unlock lock '" + name + "': it is not held by " + describeOwner(ownerId));
        }
        if (result == 1) {
            if (hold != null) {
                engine.holds().remove(hold);
            }
            engine.listener().onReleased(name, ownerId);
            viewListeners.forEach(listener -> listener.onReleased(name, ownerId));
        }
        else if (hold != null) {
            if (hold.released() > 0) {
                hold.releasing(false);
            }
            else {
                releasePhantomHolds(hold, lease, ownerId);
            }
        }
    }

    /**
     * Redis still counts holds of an owner whose every acquisition through this client was
     * unlocked: acquisitions whose reply was lost after the script ran, or nested unlocks that
     * failed. Nobody will unlock them, so release them now rather than let the watchdog renew the
     * lock forever.
     */
    private void releasePhantomHolds(Hold hold, long lease, long ownerId) {
        for (int extra = 1; extra <= MAX_PHANTOM_HOLDS; extra++) {
            Long result;
            try {
                result = releaseOnce(lease, ownerId);
            }
            catch (LockException ex) {
                engine.holds().remove(hold);
                log.warn("Lock '{}' keeps holds of owner {} that were never unlocked in Redis (lost acquire replies or"
                        + " failed unlocks); it expires with its lease", name, ownerField(ownerId), ex);
                return;
            }
            if (result == null || result == 1) {
                engine.holds().remove(hold);
                log.warn("Released {} hold(s) of lock '{}' that Redis still counted after the last unlock of owner {}"
                        + " (lost acquire replies or failed unlocks)", extra, name, ownerField(ownerId));
                if (result != null) {
                    engine.listener().onReleased(name, ownerId);
                    viewListeners.forEach(listener -> listener.onReleased(name, ownerId));
                }
                return;
            }
        }
        engine.holds().remove(hold);
    }

    private @Nullable Long releaseOnce(long lease, long ownerId) {
        String requestId = java.util.UUID.randomUUID().toString();
        // One deadline for both tries: unlock fails within the command timeout, retry or not.
        long deadline = engine.deadline();
        try {
            return engine.await(engine.call(() -> release(lease, ownerId, requestId)), name, "release", deadline);
        }
        catch (LockException ex) {
            if (!idempotentRelease() || engine.isClosed() || !engine.before(deadline)) {
                throw ex;
            }
            // The reply may have been lost after the script ran; the latch makes the retry replay it.
            return engine.await(engine.call(() -> release(lease, ownerId, requestId)), name, "release", deadline);
        }
    }

    @Override
    public boolean forceUnlock() {
        boolean deleted = engine.await(engine.call(this::forceRelease), name, "force-unlock");
        if (deleted) {
            // Only then: a read-write lock's read side refuses to delete a write-locked hash, whose holds live on.
            engine.holds().snapshot().stream().filter(h -> h.key().equals(key)).forEach(engine.holds()::remove);
        }
        return deleted;
    }

    @Override
    public boolean isLocked() {
        return engine.await(engine.call(() -> engine.connector().commands().exists(key).toCompletableFuture()), name,
                "inspect") > 0;
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return isHeldBy(currentOwner());
    }

    @Override
    public boolean isHeldBy(long ownerId) {
        String field = ownerField(ownerId);
        return engine.await(engine.call(() -> engine.connector().commands().hexists(key, field).toCompletableFuture()),
                name, "inspect");
    }

    @Override
    public int getHoldCount() {
        String field = ownerField(currentOwner());
        String count = engine.await(engine.call(() -> engine.connector().commands().hget(key, field).toCompletableFuture()),
                name, "inspect");
        return count == null ? 0 : Integer.parseInt(count);
    }

    @Override
    public long remainTimeToLive() {
        return engine.await(engine.call(() -> engine.connector().commands().pttl(key).toCompletableFuture()), name,
                "inspect");
    }

    /** @return the calling thread's owner id */
    protected static long currentOwner() {
        return Thread.currentThread().getId();
    }

    private String describeOwner(long ownerId) {
        String owner = "client id " + engine.clientId() + ", ";
        if (ownerId == currentOwner()) {
            return owner + "thread '" + Thread.currentThread().getName() + "' (id " + ownerId + ")";
        }
        return owner + "owner id " + ownerId;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + "]";
    }

    @Override
    public CompletionStage<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
        long wait = Arguments.waitMillis(waitTime, unit);
        long lease = Arguments.leaseMillis(leaseTime, unit);
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return tryLock(wait, lease, TimeUnit.MILLISECONDS, ownerId);
            }
            catch (InterruptedException ex) {
                throw new java.util.concurrent.CompletionException(ex);
            }
        });
    }

    @Override
    public CompletionStage<Void> lockAsync(long leaseTime, TimeUnit unit, long ownerId) {
        return tryLockAsync(WAIT_FOREVER, leaseTime, unit, ownerId).thenApply(acquired -> null);
    }

    @Override
    public CompletionStage<Void> unlockAsync(long ownerId) {
        return java.util.concurrent.CompletableFuture.runAsync(() -> unlock(ownerId));
    }

}
