package dev.distlock.spring.internal.hold;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.LeaseLostPolicy;
import dev.distlock.spring.LockLeaseExpiredException;
import dev.distlock.spring.LockShutdownException;
import dev.distlock.spring.LockType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acquires (through {@link LockAcquirer}) and releases the lock of a {@link LockRequest} for the
 * annotation and the template: tells the observer, keeps the {@link HoldIndex} up to date, applies
 * the minimum hold and {@code distlock.watchdog.max-hold}, and stops taking locks at shutdown.
 */
public final class LockExecutor implements AutoCloseable {

    private static final Logger logger = LoggerFactory.getLogger(LockExecutor.class);

    private final HoldIndex index;
    private final LockAcquirer acquirer;
    private final Supplier<LockObserver> observer;
    private final HoldTimers timers;
    private volatile boolean shuttingDown;

    /**
     * Creates an executor.
     * @param client the lock client
     * @param redLockClients one client per red-lock node, empty without red locks
     * @param index the index of holds and waiters
     * @param observer hears every acquisition and hold; resolved on first use
     * @param maxHold cap on watchdog-renewed holds, or {@code null} for none
     */
    public LockExecutor(
            LockClient client,
            List<LockClient> redLockClients,
            HoldIndex index,
            Supplier<LockObserver> observer,
            @Nullable Duration maxHold) {
        this.index = index;
        this.observer = observer;
        this.timers = new HoldTimers(maxHold);
        this.acquirer = new LockAcquirer(
                new LockFactory(client, redLockClients),
                index,
                observer,
                hold -> timers.startMaxHold(hold, this::maxHoldReached),
                () -> shuttingDown,
                this::releaseAsync);
        BridgeLocks.register(client, this);
    }

    /** @return the index of holds and waiters */
    HoldIndex index() {
        return index;
    }

    /** @return the observer, resolved on first use */
    LockObserver observer() {
        return observer.get();
    }

    public LeaseLostPolicy leaseLostPolicy() {
        return index.policy();
    }

    /**
     * Tries to acquire the request's lock for an owner, blocking the calling thread while it waits.
     * @param request what to lock
     * @param ownerId thread id or an id from {@link RedisLock#newOwnerId()}
     * @param thread the holding thread, or {@code null} for an asynchronous hold
     * @return the hold, or {@code null} when the wait ran out
     * @throws InterruptedException if interrupted while waiting
     * @throws LockException if Redis fails
     */
    @Nullable
    public Hold tryAcquire(LockRequest request, long ownerId, @Nullable Thread thread) throws InterruptedException {
        return acquirer.tryAcquire(request, ownerId, thread);
    }

    /**
     * Tries to acquire the request's lock for an owner without blocking; see
     * {@link LockAcquirer#tryAcquireAsync}.
     * @param request what to lock
     * @param ownerId an id from {@link RedisLock#newOwnerId()}
     * @return completes with the hold, or with {@code null} when the wait ran out
     * @throws LockShutdownException if the application is shutting down
     */
    public CompletableFuture<@Nullable Hold> tryAcquireAsync(LockRequest request, long ownerId) {
        return acquirer.tryAcquireAsync(request, ownerId);
    }

    /**
     * Wraps a task that will acquire on another thread, so that its observations keep the caller's
     * observation as their parent.
     * @param task the task
     * @return the task to run instead
     */
    Runnable propagating(Runnable task) {
        return observer.get().propagating(task);
    }

    /**
     * Releases a hold from any thread, blocking until Redis answers. A hold whose lease was already
     * lost is released quietly.
     * @param hold what {@link #tryAcquire} returned
     */
    public void release(Hold hold) {
        if (deferRelease(hold) || !hold.finished.compareAndSet(false, true)) {
            return;
        }
        RuntimeException error = null;
        try {
            if (hold.unlocked.compareAndSet(false, true)) {
                hold.observation.releasing();
                hold.lock.unlock(hold.ownerId);
            }
        } catch (RuntimeException ex) {
            error = ex;
        }
        released(hold, error);
    }

    /**
     * Releases a hold without blocking: the release completes on a Redis I/O thread. A hold whose
     * lease was already lost is released quietly; the returned stage never fails.
     * @param hold what {@link #tryAcquireAsync} returned
     * @return completes once the hold is released (at once when a minimum hold defers the release)
     */
    public CompletionStage<Void> releaseAsync(Hold hold) {
        if (deferRelease(hold) || !hold.finished.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null);
        }
        if (!hold.unlocked.compareAndSet(false, true)) {
            released(hold, null);
            return CompletableFuture.completedFuture(null);
        }
        CompletionStage<Void> unlocked;
        try {
            hold.observation.releasing();
            unlocked = hold.lock.unlockAsync(hold.ownerId);
        } catch (RuntimeException ex) {
            released(hold, ex);
            return CompletableFuture.completedFuture(null);
        }
        return unlocked.handle((ignored, error) -> {
            released(hold, unwrap(error));
            return null;
        });
    }

    private void released(Hold hold, @Nullable Throwable error) {
        timers.stopMaxHold(hold);
        if (error instanceof IllegalMonitorStateException && hold.type() == LockType.SEMAPHORE) {
            // Core's listeners hear of locks only: a permit whose lease ended is found lost here.
            index.leaseLost(hold.eventName, hold.ownerId);
        } else if (error instanceof IllegalMonitorStateException) {
            // The core has reported the lost lease through the listener already.
            logger.debug("Lock '{}' was no longer held at release: {}", hold.name(), error.getMessage());
        } else if (error != null) {
            logger.warn(
                    "Could not release lock '{}' after {}; it expires with its lease",
                    hold.name(),
                    hold.request.description(),
                    error);
        }
        index.remove(hold);
        hold.observation.released();
    }

    private boolean deferRelease(Hold hold) {
        return !shuttingDown && timers.deferRelease(hold, this::release);
    }

    /**
     * Throws when the hold's lease was lost and the policy is {@code throw}.
     * @param hold the hold
     * @throws LockLeaseExpiredException if so
     */
    public void checkLeaseLost(Hold hold) {
        if (hold.lost && index.policy() == LeaseLostPolicy.THROW) {
            throw new LockLeaseExpiredException(hold.name(), hold.request.description());
        }
    }

    /**
     * Tells whether the hold's lease was lost, also reporting it lost when an explicit lease has run
     * out by the local clock: for completions that must fail before the release finds the lock gone.
     * The lease began in Redis before the acquisition returned, so the local clock never reports it
     * early.
     * @param hold the hold
     * @return whether the lease was lost
     */
    public boolean isLeaseLost(Hold hold) {
        if (!hold.lost && !hold.unlocked.get() && hold.leaseRanOut()) {
            index.leaseLost(hold.eventName, hold.ownerId);
        }
        return hold.lost;
    }

    /**
     * Refuses every acquisition from now on with {@link LockShutdownException}, those already
     * waiting included; holds already taken stay held and renewed.
     */
    void beginShutdown() {
        shuttingDown = true;
        acquirer.abortWaits();
    }

    /**
     * Accepts acquisitions again, after a lifecycle restart.
     */
    void endShutdown() {
        shuttingDown = false;
    }

    /**
     * Waits until every hold taken through this executor is released and no acquisition is under
     * way, or the time runs out.
     * @param timeout longest wait
     * @return the number of holds still held
     * @throws InterruptedException if interrupted
     */
    int awaitReleased(Duration timeout) throws InterruptedException {
        return index.awaitEmpty(timeout);
    }

    /**
     * Reports every remaining hold lost (so the lease-lost policy applies to the method still
     * running) and releases it.
     * @return how many holds were released
     */
    int releaseRemaining() {
        int count = 0;
        for (Hold hold : index.all()) {
            if (!hold.deferred) {
                logger.warn(
                        "Releasing lock '{}' at shutdown while {} still runs", hold.name(), hold.request.description());
                index.leaseLost(hold.eventName, hold.ownerId);
            }
            release(hold);
            count++;
        }
        return count;
    }

    private void maxHoldReached(Hold hold) {
        if (hold.unlocked.get()) {
            return;
        }
        logger.warn(
                "Lock '{}' held by {} for longer than distlock.watchdog.max-hold ({}); releasing it",
                hold.name(),
                hold.request.description(),
                timers.maxHold());
        // Every level this owner re-entered goes too: one unlock would remove one level, and each
        // nesting would extend the cap.
        List<Hold> levels = new ArrayList<>(index.levels(hold.eventName, hold.ownerId));
        if (!levels.contains(hold)) {
            levels.add(hold);
        }
        for (Hold level : levels) {
            try {
                if (level.unlocked.compareAndSet(false, true)) {
                    level.lock.unlock(level.ownerId);
                }
            } catch (RuntimeException ex) {
                logger.debug("Releasing lock '{}' at max-hold failed", level.lock.getName(), ex);
            }
        }
        index.leaseLost(hold.eventName, hold.ownerId);
    }

    private static @Nullable Throwable unwrap(@Nullable Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    @Override
    public void close() {
        timers.close();
    }
}
