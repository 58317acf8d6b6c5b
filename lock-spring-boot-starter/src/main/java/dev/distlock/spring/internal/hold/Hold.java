package dev.distlock.spring.internal.hold;

import dev.distlock.core.RedisLock;
import dev.distlock.spring.LockType;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A lock held through the annotation or the template: what was asked for, who holds it, and what
 * has become of it. Core's {@link dev.distlock.core.HeldLock} describes the same hold as the client
 * sees it; {@link HoldIndex} links the two by lock name and owner.
 */
public final class Hold {

    final LockRequest request;
    final RedisLock lock;
    /** The name core reports this hold's events under. */
    final String eventName;

    final long ownerId;
    final @Nullable Thread thread;
    final long acquiredNanos = System.nanoTime();
    final Instant since = Instant.now();
    final @Nullable Long token;
    final LockObserver.Holding observation;

    /** Set by whoever sends the unlock: the release, or the max-hold cap. */
    final AtomicBoolean unlocked = new AtomicBoolean();
    /** Set by the one release that does the bookkeeping, when a cancel races a completion. */
    final AtomicBoolean finished = new AtomicBoolean();

    volatile boolean deferred;
    volatile @Nullable ScheduledFuture<?> maxHoldTask;
    volatile boolean lost;
    volatile @Nullable Runnable canceller;
    final Set<Integer> lostRedLockNodes = ConcurrentHashMap.newKeySet();
    /**
     * When an explicit lease runs out by {@link System#nanoTime()}, counted from after Redis granted
     * (or renewed) it, so it never comes early; unused for a watchdog-renewed hold.
     */
    private volatile long leaseDeadlineNanos;

    Hold(
            LockRequest request,
            RedisLock lock,
            long ownerId,
            @Nullable Thread thread,
            @Nullable Long token,
            LockObserver.Holding observation) {
        this.request = request;
        this.lock = lock;
        // A red lock's members report events under the plain lock name, not the composite's name.
        this.eventName = request.type() == LockType.RED && request.names().size() == 1
                ? request.names().get(0)
                : lock.getName();
        this.ownerId = ownerId;
        this.thread = thread;
        this.token = token;
        this.observation = observation;
        this.leaseDeadlineNanos =
                acquiredNanos + Math.max(0, request.leaseTime().toNanos());
    }

    /** @return the request this hold was taken for */
    public LockRequest request() {
        return request;
    }

    /** @return the resolved lock name */
    public String name() {
        return lock.getName();
    }

    /** @return the type of lock the request asked for */
    public LockType type() {
        return request.type();
    }

    /**
     * @return whether the hold is still valid as far as this instance knows: not released, not found
     *         lost, and, for an explicit lease, not past its local deadline
     */
    public boolean isHeld() {
        return !unlocked.get() && !lost && !leaseRanOut();
    }

    /** @return whether an explicit lease has run out by the local clock; never for a watchdog-renewed hold */
    boolean leaseRanOut() {
        return !request.leaseTime().isNegative() && System.nanoTime() - leaseDeadlineNanos >= 0;
    }

    /**
     * Moves the explicit lease's local deadline after Redis renewed it.
     * @param lease the lease Redis now keeps, from about now
     */
    void leaseRenewed(java.time.Duration lease) {
        leaseDeadlineNanos = System.nanoTime() + lease.toNanos();
    }

    /** @return the fencing token, or {@code null} when unfenced */
    @Nullable
    public Long fencingToken() {
        return token;
    }

    /** @return the id of the semaphore permit this hold took, or {@code null} for a lock */
    @Nullable
    public String permitId() {
        return lock instanceof PermitLock permit ? permit.permitId() : null;
    }

    /** @return when the hold was acquired */
    public java.time.Instant since() {
        return since;
    }

    /** @return the name of the holding thread, or {@code null} for an asynchronous hold */
    @Nullable
    public String threadName() {
        return thread != null ? thread.getName() : null;
    }

    /**
     * Marks the hold lost, once.
     * @return whether this call marked it
     */
    synchronized boolean markLost() {
        if (lost) {
            return false;
        }
        lost = true;
        return true;
    }

    /**
     * Sets what to run to cancel the guarded work when the lease is lost (policy {@code interrupt}).
     * @param canceller cancels the future or subscription
     */
    public void onLeaseLost(Runnable canceller) {
        this.canceller = canceller;
    }
}
