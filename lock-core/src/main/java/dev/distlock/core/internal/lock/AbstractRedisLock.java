package dev.distlock.core.internal.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockListener;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.pubsub.ChannelWaiters;
import dev.distlock.core.internal.script.LuaScript;

/**
 * A single-key lock: the public API over the shared engine pieces ({@link Acquisition} waits,
 * {@link Release} unlocks, {@link Blocking} turns both into the blocking methods). A kind supplies
 * one acquire attempt, one release, and what renewal, wake-ups and inspection need.
 */
public abstract class AbstractRedisLock implements RedisLock, Cloneable {

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
     * @param attempt lease, owner, remaining wait and the waiters the caller joined
     * @return {@code null} when acquired, else the ms to wait before trying again ({@code -1} unknown)
     */
    protected abstract CompletableFuture<@Nullable Long> tryOnce(Attempt attempt);

    /**
     * Runs the release script once. The script keeps an unlock latch under the request id, so a
     * release whose reply was lost can be retried with the same id and replays its first outcome.
     * @param leaseMillis lease to keep while holds remain
     * @param ownerId owner
     * @param requestId unique id of this unlock call
     * @return {@code null} when the owner held nothing, {@code 0} when holds remain, {@code 1} when released
     */
    protected abstract CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId, String requestId);

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
     * Joins this kind's wake-up channel for an owner. Kinds with targeted wake-ups also listen on a
     * client channel and unlist the client when its last local waiter leaves.
     * @param ownerId owner
     * @return the channel's waiters
     */
    protected ChannelWaiters join(long ownerId) {
        return engine.subscriptions().join(wakeChannel(ownerId));
    }

    /**
     * Checks, before the first attempt, that the call can ever succeed.
     * @param waitMillis the caller's wait
     * @param ownerId owner
     * @return completes when the call may go ahead; fails with what to report otherwise
     */
    protected CompletableFuture<Void> beforeAcquire(long waitMillis, long ownerId) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Called when an owner stops waiting without the lock (timeout, cancel); kinds that queue
     * waiters remove it here. Never fails: an entry it cannot remove lapses by itself.
     * @param ownerId owner
     * @return completes once done
     */
    protected CompletableFuture<Void> abandonWait(long ownerId) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Called once when an acquisition ends, whatever the outcome, after it left the wake-up channel.
     * @param call the acquisition
     * @param acquired whether it holds the lock
     * @param leaseMillis its lease, {@code -1} for the watchdog
     */
    protected void acquisitionEnded(Acquisition call, boolean acquired, long leaseMillis) {
    }

    /**
     * Returns the owner field of this kind.
     * @param ownerId owner
     * @return field in the lock hash
     */
    protected String ownerField(long ownerId) {
        return engine.ownerField(ownerId);
    }

    /** Runs the release script once with a fresh request id. @return as {@link #release(long, long, String)} */
    final CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId) {
        return release(leaseMillis, ownerId, UUID.randomUUID().toString());
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
        try {
            acquire(WAIT_FOREVER, Arguments.leaseMillis(leaseTime, unit), currentOwner(), false);
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

    @Override
    public CompletionStage<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
        long wait = Arguments.waitMillis(waitTime, unit);
        return acquireAsync(wait, Arguments.leaseMillis(leaseTime, unit), ownerId).start();
    }

    @Override
    public CompletionStage<Void> lockAsync(long leaseTime, TimeUnit unit, long ownerId) {
        return tryLockAsync(WAIT_FOREVER, leaseTime, unit, ownerId).thenApply(acquired -> null);
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
        return awaitAcquisition(acquireAsync(waitMillis, leaseMillis, ownerId), interruptible);
    }

    /**
     * Starts an acquisition and waits for it, with the blocking methods' interrupt rules.
     * @param call the acquisition, not started yet
     * @param interruptible whether an interrupt aborts the wait (else it is restored afterwards)
     * @return whether acquired
     * @throws InterruptedException if interruptible and interrupted
     */
    final boolean awaitAcquisition(Acquisition call, boolean interruptible) throws InterruptedException {
        engine.ensureOpen(name);
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + name + "'");
        }
        return Blocking.acquire(call, call.start(), interruptible);
    }

    /**
     * Creates the acquisition of a call; kinds that report more than the outcome (a fencing token)
     * read it from the acquisition.
     */
    Acquisition acquireAsync(long waitMillis, long leaseMillis, long ownerId) {
        return new Acquisition(this, waitMillis, leaseMillis, ownerId);
    }

    /** Records a granted hold (renewal, bookkeeping) and tells the listeners. */
    void registerHold(long leaseMillis, long ownerId, long start) {
        // Granted as close() ran: nothing will renew or release the hold, which expires with its
        // lease like every hold at close, so report the close rather than a hold the caller cannot use.
        engine.ensureOpen(name);
        List<LockListener> listeners = viewListeners;
        engine.holds().acquired(name, kind(), key, ownerId, ownerField(ownerId), renewScript(), leaseMillis, listeners);
        long waitNanos = System.nanoTime() - start;
        engine.listener().onAcquired(name, ownerId, waitNanos);
        listeners.forEach(listener -> listener.onAcquired(name, ownerId, waitNanos));
    }

    void reportTimeout(long ownerId, long start) {
        long waitNanos = System.nanoTime() - start;
        engine.listener().onTimeout(name, ownerId, waitNanos);
        viewListeners.forEach(listener -> listener.onTimeout(name, ownerId, waitNanos));
    }

    void reportReleasing(long ownerId) {
        engine.listener().onReleasing(name, ownerId);
        viewListeners.forEach(listener -> listener.onReleasing(name, ownerId));
    }

    void reportReleased(long ownerId) {
        engine.listener().onReleased(name, ownerId);
        viewListeners.forEach(listener -> listener.onReleased(name, ownerId));
    }

    @Override
    public void unlock() {
        unlock(currentOwner());
    }

    @Override
    public void unlock(long ownerId) {
        Blocking.join(new Release(this, ownerId, describeOwner(ownerId)).run());
    }

    @Override
    public CompletionStage<Void> unlockAsync(long ownerId) {
        return new Release(this, ownerId, describeOwner(ownerId)).run();
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
}
