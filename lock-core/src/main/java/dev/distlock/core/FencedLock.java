package dev.distlock.core;

import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A reentrant lock that hands out a fencing token with every acquisition: a 64-bit number that
 * strictly increases per lock name (Redisson's {@code redisson_lock_token:{name}} counter), also on
 * re-entry.
 *
 * <p>No lease-based lock can stop a holder that was paused (GC, VM freeze) past its lease from
 * acting as if it still held the lock. A resource that remembers the highest token it has seen and
 * rejects writes carrying a lower one stays safe anyway: pass the token along with every write.
 */
public interface FencedLock extends RedisLock {

    /**
     * Like {@link RedisLock#withListener(LockListener)}, keeping the fenced lock's type.
     * @param listener the listener
     * @return a view of this lock
     */
    @Override
    FencedLock withListener(LockListener listener);

    /**
     * Acquires like {@link #lock()} (watchdog lease) and returns the acquisition's token.
     * @return the fencing token
     */
    long lockAndGetToken();

    /**
     * Acquires like {@link #lock(long, TimeUnit)} and returns the acquisition's token.
     * @param leaseTime positive lease, or {@code -1} for the watchdog
     * @param unit unit of {@code leaseTime}
     * @return the fencing token
     */
    long lockAndGetToken(long leaseTime, TimeUnit unit);

    /**
     * Tries like {@link #tryLock(long, long, TimeUnit)} and returns the acquisition's token. With a
     * {@code waitTime} of {@code 0} it tries once and never blocks.
     * @param waitTime how long to wait; {@code 0} or less tries once (as Redisson does),
     *     {@link RedisLock#WAIT_FOREVER} waits as long as needed
     * @param leaseTime positive lease, or {@code -1} for the watchdog
     * @param unit unit of both times
     * @return the token, or empty when the lock was not acquired
     * @throws InterruptedException if interrupted while waiting
     */
    OptionalLong tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * Like {@link #tryLockAndGetToken(long, long, TimeUnit)}, on behalf of an explicit owner.
     * @param waitTime how long to wait; {@code 0} or less tries once (as Redisson does),
     *     {@link RedisLock#WAIT_FOREVER} waits as long as needed
     * @param leaseTime positive lease, or {@code -1} for the watchdog
     * @param unit unit of both times
     * @param ownerId owner id from {@link RedisLock#newOwnerId()}
     * @return the token, or empty when the lock was not acquired
     * @throws InterruptedException if interrupted while waiting
     */
    OptionalLong tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit, long ownerId)
            throws InterruptedException;

    /**
     * Like {@link #tryLockAndGetToken(long, long, TimeUnit, long)} without blocking the calling
     * thread; threads, cancellation and errors as {@link #tryLockAsync(long, long, TimeUnit, long)}.
     * @param waitTime how long to wait; {@code 0} or less tries once (as Redisson does),
     *     {@link RedisLock#WAIT_FOREVER} waits as long as needed
     * @param leaseTime positive lease, or {@code -1} for the watchdog
     * @param unit unit of both times
     * @param ownerId owner id from {@link RedisLock#newOwnerId()}
     * @return completes with the token, or with {@code null} when the wait ended without the lock
     */
    CompletionStage<@Nullable Long> tryLockAndGetTokenAsync(long waitTime, long leaseTime, TimeUnit unit, long ownerId);

    /**
     * Returns the latest token issued for this lock name: while the lock is held, its holder's token.
     * @return the latest token, {@code 0} when none was ever issued
     */
    long getToken();
}
