package dev.distlock.core;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A lock whose state lives in Redis, so that threads in different processes exclude each other.
 *
 * <p><b>Ownership.</b> A hold belongs to an owner: by default the calling thread, identified as
 * {@code <clientId>:<threadId>} (Redisson's format). Code whose work hops between threads
 * (futures, reactive pipelines) takes and releases the lock for an explicit owner id obtained from
 * {@link #newOwnerId()}, through the {@code ...(…, long ownerId)} overloads.
 *
 * <p><b>Leases.</b> Every hold has a lease. A positive {@code leaseTime} makes the hold expire after
 * that time, whether or not it was unlocked; nothing renews it. A {@code leaseTime} of {@code -1}
 * (and every method without a lease argument) uses the client's watchdog: the lease is the
 * watchdog timeout and is renewed every third of it for as long as the hold lasts. If a renewal
 * finds the hold gone, the lock is reported lost (log at WARN and {@link LockListener#onLeaseLost}).
 *
 * <p><b>Reentrancy.</b> An owner may take the same lock again; each acquisition must be matched by
 * an unlock. Re-entering resets the lease to the new acquisition's lease.
 *
 * <p><b>Waiting.</b> {@code lock} methods wait as long as needed; {@code tryLock} methods wait up to
 * their {@code waitTime}: a positive wait bounds the wait, {@code 0} or a negative wait makes one
 * attempt (Redisson's meaning), and {@link #WAIT_FOREVER} waits as long as needed. Waiters are woken
 * by a pub/sub message when the lock is released and otherwise sleep until the current holder's
 * lease would end; they never poll in a loop.
 *
 * <p><b>Cancelling.</b> Every stage an asynchronous method returns ({@link #tryLockAsync},
 * {@link #lockAsync}, {@code FencedLock.tryLockAndGetTokenAsync}) passes a cancel on to the
 * acquisition: cancelling it while the call waits abandons the wait, and a hold granted as the cancel
 * raced it is given back, leaving the lease the owner's other holds call for.
 *
 * <p><b>Failures.</b> A call that does not wait (an acquisition with no wait, {@code unlock},
 * {@code forceUnlock}, the inspection methods) fails with a {@link LockException} naming the lock
 * within the client's command timeout, however many commands it sends. Two exceptions: with
 * {@code replicaSync} an acquisition also waits for the replicas (and undoes an unreplicated grant),
 * and an unlock that finds holds whose acquire replies were lost takes up to one more command
 * timeout to release them. A waiting call keeps waiting through failed attempts and returns within
 * its wait plus two command timeouts (its last attempt, then leaving a fair lock's queue or the
 * waiters), three if the pub/sub connection has to be opened during the wait. Once the client is
 * closed, every call, including a parked waiter, fails with a {@link LockException} saying so.
 * Conditions are not supported.
 *
 * <p><b>Names in a Redis Cluster.</b> Every name works on every topology. Every key and channel of a
 * lock must hash to one cluster slot; where Redisson's names do that (names with a hash tag, names
 * without braces) the lock keeps them, and for the other names (<code>a&#123;&#125;</code>,
 * <code>&#125;&#123;</code>, <code>x&#123;</code>) a cluster stores the lock under a key with a hash
 * tag of its own, <code>distlock_cluster:&#123;</code>name<code>&#125;</code> with <code>%</code>
 * and <code>&#125;</code> escaped; see the topologies page of the documentation.
 */
public interface RedisLock extends Lock {

    /** Lease value that means "use the watchdog" (renewed while held). */
    long WATCHDOG_LEASE = -1;

    /**
     * Wait value ({@link Long#MAX_VALUE}, in any unit) that makes {@code tryLock} wait as long as it
     * takes, as {@link #lock()} does. A negative wait does not: like Redisson, {@code tryLock} makes
     * one attempt for any wait that is not positive, so a migrated {@code tryLock(-1, 10, SECONDS)}
     * never hangs. (This constant was {@code -1} before; code compiled against that value now makes
     * one attempt and must be recompiled to wait.)
     */
    long WAIT_FOREVER = Long.MAX_VALUE;

    /**
     * Returns a new owner id for code that takes and releases a lock on different threads.
     * Ids are negative so they never collide with thread ids.
     * @return an owner id unique within this JVM
     */
    static long newOwnerId() {
        return OwnerIdSequence.next();
    }

    /**
     * Returns the lock's name as given to the client, without the key prefix.
     * @return the lock name
     */
    String getName();

    /**
     * Acquires the lock, waiting as long as needed, with the given lease. Interrupts are deferred:
     * the thread's interrupt flag is restored once the lock is held.
     * @param leaseTime positive lease, or {@code -1} for the watchdog
     * @param unit unit of {@code leaseTime}
     */
    void lock(long leaseTime, TimeUnit unit);

    /**
     * Acquires the lock with the given lease, waiting until it is free or the thread is interrupted.
     * @param leaseTime positive lease, or {@code -1} for the watchdog
     * @param unit unit of {@code leaseTime}
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * Acquires the lock if it is free now, with the watchdog lease. As
     * {@link Lock#tryLock()} requires, the thread's interrupt flag is ignored: a free lock is
     * acquired and the flag stays set.
     * @return whether the lock was acquired
     */
    @Override
    boolean tryLock();

    /**
     * Tries to acquire the lock within {@code waitTime}, with the given lease.
     * @param waitTime how long to wait; {@code 0} or less tries once (as Redisson does),
     *     {@link RedisLock#WAIT_FOREVER} waits as long as needed
     * @param leaseTime positive lease, or {@code -1} for the watchdog
     * @param unit unit of both times
     * @return whether the lock was acquired
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * Like {@link #tryLock(long, long, TimeUnit)}, on behalf of an explicit owner.
     * @param waitTime how long to wait; {@code 0} or less tries once (as Redisson does),
     *     {@link RedisLock#WAIT_FOREVER} waits as long as needed
     * @param leaseTime positive lease, or {@code -1} for the watchdog
     * @param unit unit of both times
     * @param ownerId owner id from {@link #newOwnerId()}
     * @return whether the lock was acquired
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    boolean tryLock(long waitTime, long leaseTime, TimeUnit unit, long ownerId) throws InterruptedException;

    /**
     * Tries to acquire the lock within {@code waitTime} on behalf of an explicit owner, without
     * blocking the calling thread: the same scripts, leases, watchdog and errors as
     * {@link #tryLock(long, long, TimeUnit, long)}. While the stage waits, no thread waits for it;
     * it completes on a Redis I/O or client timer thread, so dependent stages that block must be run
     * with an executor of their own ({@code thenApplyAsync(…, executor)}).
     *
     * <p>Cancelling the returned stage ({@code toCompletableFuture().cancel(…)}) while it waits
     * abandons the wait: the owner leaves a fair lock's queue (unless another of its calls still
     * waits there), the client stops listening for the lock if nobody else here waits, and a hold
     * granted as the cancel raced it is released. Invalid arguments throw at call time, as the
     * blocking methods do; failures while running (Redis not answering, client closed) fail the
     * stage with a {@link LockException}.
     * @param waitTime how long to wait; {@code 0} or less tries once (as Redisson does),
     *     {@link RedisLock#WAIT_FOREVER} waits as long as needed
     * @param leaseTime positive lease, or {@code -1} for the watchdog
     * @param unit unit of both times
     * @param ownerId owner id from {@link #newOwnerId()}
     * @return completes with whether the lock was acquired
     * @throws IllegalArgumentException if a time is out of range
     */
    CompletionStage<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long ownerId);

    /**
     * Acquires the lock on behalf of an explicit owner, waiting as long as needed, without blocking
     * the calling thread. See {@link #tryLockAsync(long, long, TimeUnit, long)} for threads,
     * cancellation and errors.
     * @param leaseTime positive lease, or {@code -1} for the watchdog
     * @param unit unit of {@code leaseTime}
     * @param ownerId owner id from {@link #newOwnerId()}
     * @return completes once the lock is held
     * @throws IllegalArgumentException if the lease is out of range
     */
    CompletionStage<Void> lockAsync(long leaseTime, TimeUnit unit, long ownerId);

    /**
     * Releases one hold of the given owner without blocking the calling thread: the same release
     * as {@link #unlock(long)}, including its retry of a release whose reply was lost. The stage
     * fails with {@link IllegalMonitorStateException} if that owner does not hold the lock, and with
     * {@link LockException} if Redis does not answer.
     * @param ownerId the owner id the lock was taken with
     * @return completes once the hold is released
     */
    CompletionStage<Void> unlockAsync(long ownerId);

    /**
     * Releases one hold of the given owner, from any thread.
     * @param ownerId the owner id the lock was taken with
     * @throws IllegalMonitorStateException if that owner does not hold the lock
     */
    void unlock(long ownerId);

    /**
     * Sets the lease of an owner's hold to {@code leaseTime} from now, if the owner still holds the
     * lock: every acquisition of it not yet unlocked now ends with that lease, and the watchdog no
     * longer renews the hold. For code that extends a hold by its own rules (ShedLock's
     * {@code extend}, Spring Integration's {@code renewLock}).
     * @param leaseTime positive lease, counted from now
     * @param unit unit of {@code leaseTime}
     * @param ownerId the owner id the lock was taken with (a thread id for the blocking methods)
     * @return whether the owner held the lock (and now holds it for {@code leaseTime}); {@code false}
     *     when the lease had already ended or someone else holds the lock
     * @throws IllegalArgumentException if the lease is not positive
     * @throws UnsupportedOperationException for locks over several keys ({@link MultiLock},
     *     {@link RedLock}) and the read-write kinds
     */
    default boolean renewLease(long leaseTime, TimeUnit unit, long ownerId) {
        throw new UnsupportedOperationException(
                "Lock '" + getName() + "' of " + getClass().getSimpleName() + " does not support renewLease");
    }

    /**
     * Returns whether anyone holds the lock now.
     * @return whether the lock is held
     */
    boolean isLocked();

    /**
     * Returns whether the calling thread holds the lock, as Redis sees it now.
     * @return whether the current thread holds the lock
     */
    boolean isHeldByCurrentThread();

    /**
     * Returns whether the given owner holds the lock, as Redis sees it now.
     * @param ownerId a thread id or an id from {@link #newOwnerId()}
     * @return whether that owner holds the lock
     */
    boolean isHeldBy(long ownerId);

    /**
     * Returns how many times the calling thread holds the lock ({@code 0} when it does not).
     * @return the hold count
     */
    int getHoldCount();

    /**
     * Returns the lock's remaining lease.
     * @return milliseconds, {@code -2} when not locked, {@code -1} when it has no expiry
     */
    long remainTimeToLive();

    /**
     * Returns a view of this lock that also reports to the given listener, in addition to the
     * client's. The view shares everything else with this lock; this lock is unchanged. Use it
     * when the code that holds a lock must react to losing it (stop the work the lock guards)
     * without a client-wide listener that dispatches by name.
     *
     * <p>The listener hears {@code onAcquired}, {@code onTimeout} and {@code onReleased} for calls
     * made through the view. It stays attached to every hold taken through the view until that hold
     * ends, so {@link LockListener#onLeaseLost} reaches it whether the loss is found by a watchdog
     * renewal or by an unlock, through this view or another. A listener that throws is logged and
     * ignored.
     * @param listener the listener
     * @return a view of this lock
     */
    RedisLock withListener(LockListener listener);

    /**
     * Deletes the lock whoever holds it, and wakes its waiters. For administration only. Holders
     * through this client are told at once ({@link LockListener#onLeaseLost}) and their watchdog
     * stops; holders through other clients hear it at their next renewal or unlock.
     * @return whether a lock was deleted
     */
    boolean forceUnlock();

    /**
     * Not supported: a distributed lock has no condition variables.
     * @throws UnsupportedOperationException always
     */
    @Override
    default Condition newCondition() {
        throw new UnsupportedOperationException("RedisLock '" + getName()
                + "' does not support conditions; use a Redis queue or pub/sub for signalling");
    }
}
