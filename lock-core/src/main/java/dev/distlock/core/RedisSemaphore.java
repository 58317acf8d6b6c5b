package dev.distlock.core;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A distributed semaphore whose permits free themselves: each permit taken has an id and a lease,
 * and comes back to the semaphore when it is released by its id or when its lease ends, whichever
 * comes first. Obtained from {@link LockClient#getSemaphore(String)}.
 *
 * <p>The data is Redisson's {@code RPermitExpirableSemaphore} layout for the same name: the
 * semaphore key holds the number of available permits, {@code {name}:timeout} is a sorted set of the
 * taken permits' ids scored by their expiry (ms since the epoch, on the Redis server's clock), and
 * releases publish the permits now available on {@code redisson_sc:{name}}. A Redisson client and a
 * Distlock client on the same name share its permits.
 *
 * <p>A lease of {@code -1} gives a watchdog permit: its expiry is one watchdog timeout ahead, and the
 * client renews it every third of that while the client is open. After the client closes or its
 * process dies the permit comes back within one watchdog timeout. Waiters are woken by the
 * semaphore's channel when a permit is given back, and otherwise re-check when the earliest lease of
 * a taken permit ends; they never poll.
 *
 * <p>Permits are not tied to threads: any caller may release a permit by its id. Redisson measures
 * its leases on its own client's clock; mixed with Redisson, keep that clock close to the server's.
 */
public interface RedisSemaphore {

    /** Lease meaning "renewed by the client's watchdog while the client is open". */
    long WATCHDOG_LEASE = -1;

    /** @return the semaphore's name */
    String getName();

    /**
     * Sets the number of permits if the semaphore has none set yet (Redisson's
     * {@code trySetPermits}); waiters are woken when it was set.
     * @param permits the number of permits, zero or more
     * @return {@code true} when set, {@code false} when the semaphore had its permits set already
     * @throws IllegalArgumentException when {@code permits} is negative
     * @throws LockException when Redis does not answer in time
     */
    boolean trySetPermits(int permits);

    /**
     * Sets the number of permits without blocking a thread; see {@link #trySetPermits(int)}.
     * @param permits the number of permits, zero or more
     * @return completes with {@code true} when set, {@code false} when the semaphore had its permits set already
     * @throws IllegalArgumentException when {@code permits} is negative
     */
    CompletionStage<Boolean> trySetPermitsAsync(int permits);

    /**
     * Lists the permits taken now, by any client (Redisson's included), read from the semaphore's
     * timeout set: each permit's id and how long its lease has left on the Redis server's clock.
     * Permits whose lease has ended are left out, although Redis may still list them until the next
     * acquisition or count gives them back. For diagnostics: the list is read in two commands, so it
     * may be a moment old when it returns.
     * @return the taken permits, soonest expiry first
     * @throws LockException when Redis does not answer in time
     */
    List<Permit> takenPermits();

    /**
     * A permit taken now, as {@link #takenPermits()} reports it.
     * @param id the permit's id, as {@code tryAcquire} returned it to its taker
     * @param remainingTtlMillis how long its lease has left; a watchdog permit is renewed before it ends
     */
    record Permit(String id, long remainingTtlMillis) {}

    /**
     * Takes a permit, waiting up to {@code waitTime} for one.
     * @param waitTime longest wait; zero or less makes one attempt
     * @param leaseTime the permit's lease: positive, or {@code -1} for a watchdog permit
     * @param unit unit of both times
     * @return the permit's id, or {@code null} when no permit came within the wait
     * @throws IllegalArgumentException when {@code leaseTime} is zero or negative other than {@code -1}
     * @throws InterruptedException when interrupted while waiting; no permit is kept
     * @throws LockException when Redis does not answer in time, or the client was closed
     */
    @Nullable
    String tryAcquire(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * Takes a permit, waiting as long as needed.
     * @param leaseTime the permit's lease: positive, or {@code -1} for a watchdog permit
     * @param unit its unit
     * @return the permit's id
     * @throws IllegalArgumentException when {@code leaseTime} is zero or negative other than {@code -1}
     * @throws InterruptedException when interrupted while waiting; no permit is kept
     * @throws LockException when Redis does not answer in time, or the client was closed
     */
    String acquire(long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * Gives back a permit by its id and wakes a waiter.
     * @param permitId the id {@code tryAcquire} or {@code acquire} returned
     * @throws IllegalArgumentException when no such permit of this semaphore is taken (released
     *     already, its lease ended, or never taken); the message names the semaphore and the id
     * @throws NullPointerException when {@code permitId} is null
     * @throws LockException when Redis does not answer in time
     */
    void release(String permitId);

    /**
     * Counts the permits available now, after giving back those whose lease ended.
     * @return available permits; 0 when none were ever set
     * @throws LockException when Redis does not answer in time
     */
    int availablePermits();

    /**
     * Takes a permit without blocking a thread; see {@link #tryAcquire(long, long, TimeUnit)}.
     * Cancelling the returned stage's future gives back a permit taken meanwhile.
     * @param waitTime longest wait; zero or less makes one attempt
     * @param leaseTime the permit's lease: positive, or {@code -1} for a watchdog permit
     * @param unit unit of both times
     * @return completes with the permit's id, or with {@code null} when none came within the wait
     */
    CompletionStage<@Nullable String> tryAcquireAsync(long waitTime, long leaseTime, TimeUnit unit);

    /**
     * Takes a permit without blocking a thread, waiting as long as needed.
     * @param leaseTime the permit's lease: positive, or {@code -1} for a watchdog permit
     * @param unit its unit
     * @return completes with the permit's id
     */
    CompletionStage<String> acquireAsync(long leaseTime, TimeUnit unit);

    /**
     * Gives back a permit by its id without blocking a thread; see {@link #release(String)}.
     * @param permitId the permit's id
     * @return completes when given back, or exceptionally as {@link #release(String)} throws
     */
    CompletionStage<Void> releaseAsync(String permitId);
}
