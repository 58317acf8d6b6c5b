package dev.distlock.spring.internal;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.LockLeaseExpiredException;
import dev.distlock.spring.LockShutdownException;
import dev.distlock.spring.LockType;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acquires and releases the lock of a {@link LockRequest}, keeping {@link ActiveHolds} and the
 * metrics observer up to date, and enforcing {@code distlock.watchdog.max-hold}.
 */
public final class LockExecutor implements AutoCloseable {

    private static final Logger logger = LoggerFactory.getLogger(LockExecutor.class);

    private final LockFactory factory;
    private final ActiveHolds holds;
    private final Supplier<LockObserver> observer;
    private final Supplier<LockInstrumentation> instrumentation;
    private final @Nullable Duration maxHold;
    private final @Nullable ScheduledExecutorService scheduler;
    private final java.util.Set<Hold> live = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final Object liveMonitor = new Object();
    private volatile boolean shuttingDown;
    private volatile @Nullable ScheduledExecutorService deferrals;

    /**
     * Creates an executor that also reports each acquisition and hold to an instrumentation.
     * @param client the lock client
     * @param redLockClients one client per red-lock node, empty without red locks
     * @param holds registry of active holds
     * @param observer metrics hooks
     * @param instrumentation per-call observations
     * @param maxHold cap on watchdog-renewed holds, or {@code null} for none
     */
    public LockExecutor(
            LockClient client,
            List<LockClient> redLockClients,
            ActiveHolds holds,
            Supplier<LockObserver> observer,
            Supplier<LockInstrumentation> instrumentation,
            @Nullable Duration maxHold) {
        this.factory = new LockFactory(client, redLockClients);
        this.holds = holds;
        this.observer = observer;
        this.instrumentation = instrumentation;
        this.maxHold = maxHold;
        this.scheduler = maxHold == null
                ? null
                : Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread thread = new Thread(r, "distlock-max-hold");
                    thread.setDaemon(true);
                    return thread;
                });
    }

    /**
     * Returns the registry of active holds.
     * @return the registry
     */
    public ActiveHolds holds() {
        return holds;
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
    public @Nullable Hold tryAcquire(LockRequest request, long ownerId, @Nullable Thread thread)
            throws InterruptedException {
        Attempt attempt = begin(request, ownerId, thread);
        boolean acquired;
        Long token = null;
        try (LockInstrumentation.Scope scope = attempt.observation.openScope()) {
            if (attempt.lock instanceof FencedLock fenced) {
                OptionalLong issued = fenced.tryLockAndGetToken(
                        millis(request.waitTime()), millis(request.leaseTime()), TimeUnit.MILLISECONDS, ownerId);
                acquired = issued.isPresent();
                token = acquired ? issued.getAsLong() : null;
            } else {
                acquired = attempt.lock.tryLock(
                        millis(request.waitTime()), millis(request.leaseTime()), TimeUnit.MILLISECONDS, ownerId);
            }
        } catch (InterruptedException | RuntimeException ex) {
            attempt.ended(false, null, ex);
            throw ex;
        }
        // Outside the acquisition's scope: the hold's observation is a sibling, not a child, of it.
        return attempt.ended(acquired, token, null);
    }

    /**
     * Tries to acquire the request's lock for an owner without blocking: the wait runs in the
     * lock client, and the returned future completes on whichever thread completes the client's
     * (a Redis I/O or timer thread). Cancelling the returned future abandons the wait; a hold
     * granted as the cancel raced is released, so a cancelled acquisition never leaves the lock held.
     * @param request what to lock
     * @param ownerId an id from {@link RedisLock#newOwnerId()}
     * @return completes with the hold, or with {@code null} when the wait ran out
     * @throws LockShutdownException if the application is shutting down
     */
    public CompletableFuture<@Nullable Hold> tryAcquireAsync(LockRequest request, long ownerId) {
        Attempt attempt = begin(request, ownerId, null);
        CompletableFuture<?> pending;
        try (LockInstrumentation.Scope scope = attempt.observation.openScope()) {
            pending = attempt.lock instanceof FencedLock fenced
                    ? fenced.tryLockAndGetTokenAsync(
                                    millis(request.waitTime()),
                                    millis(request.leaseTime()),
                                    TimeUnit.MILLISECONDS,
                                    ownerId)
                            .toCompletableFuture()
                    : attempt.lock
                            .tryLockAsync(
                                    millis(request.waitTime()),
                                    millis(request.leaseTime()),
                                    TimeUnit.MILLISECONDS,
                                    ownerId)
                            .toCompletableFuture();
        } catch (RuntimeException ex) {
            attempt.ended(false, null, ex);
            throw ex;
        }
        CompletableFuture<@Nullable Hold> result = new CompletableFuture<>();
        pending.whenComplete((value, error) -> {
            Hold hold;
            try {
                Throwable cause =
                        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                boolean acquired = cause == null && (value instanceof Long || Boolean.TRUE.equals(value));
                hold = attempt.ended(acquired, value instanceof Long token ? token : null, cause);
                if (cause != null) {
                    result.completeExceptionally(cause);
                    return;
                }
            } catch (RuntimeException ex) {
                result.completeExceptionally(ex);
                return;
            }
            if (!result.complete(hold) && hold != null) {
                // Granted as the caller cancelled: nobody will ever release it but us.
                releaseAsync(hold);
            }
        });
        result.whenComplete((hold, error) -> {
            if (result.isCancelled()) {
                pending.cancel(false);
            }
        });
        return result;
    }

    private Attempt begin(LockRequest request, long ownerId, @Nullable Thread thread) {
        if (shuttingDown) {
            throw new LockShutdownException(
                    request.names().size() == 1 ? request.names().get(0) : String.join(",", request.names()),
                    request.description());
        }
        if (request.fenced() && request.names().size() != 1) {
            // A multi lock has no single token: never hand out an unfenced hold as if it were fenced.
            throw new IllegalStateException(
                    request.description() + ": fenced = true needs exactly one lock name, the key gave "
                            + request.names().size());
        }
        RedisLock lock = request.names().size() == 1
                ? factory.lock(request.names().get(0), request.type(), request.fenced())
                : factory.multi(request.names(), request.type());
        return new Attempt(request, lock, ownerId, thread);
    }

    /**
     * Wraps a task that will acquire on another thread, so that its observations keep the caller's
     * observation as their parent.
     * @param task the task
     * @return the task to run instead
     */
    public Runnable propagating(Runnable task) {
        return instrumentation.get().propagating(task);
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
            unlocked = hold.lock.unlockAsync(hold.ownerId);
        } catch (RuntimeException ex) {
            released(hold, ex);
            return CompletableFuture.completedFuture(null);
        }
        return unlocked.handle((ignored, error) -> {
            released(hold, error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
            return null;
        });
    }

    private void released(Hold hold, @Nullable Throwable error) {
        ScheduledFuture<?> task = hold.maxHoldTask;
        if (task != null) {
            task.cancel(false);
        }
        if (error instanceof IllegalMonitorStateException) {
            // The core has reported the lost lease through the listener already.
            logger.debug("Lock '{}' was no longer held at release: {}", hold.lock.getName(), error.getMessage());
        } else if (error != null) {
            logger.warn(
                    "Could not release lock '{}' after {}; it expires with its lease",
                    hold.lock.getName(),
                    hold.request.description(),
                    error);
        }
        if (live.remove(hold)) {
            synchronized (liveMonitor) {
                liveMonitor.notifyAll();
            }
        }
        holds.unregister(hold.entry);
        observer.get().released(hold.request.template(), hold.request.type(), System.nanoTime() - hold.acquiredNanos);
        hold.held.released();
    }

    /** One acquisition under way: its bookkeeping from the first try to the outcome. */
    private final class Attempt {

        final LockRequest request;
        final RedisLock lock;
        final long ownerId;
        final @Nullable Thread thread;
        final LockObserver observer;
        final LockInstrumentation.Acquire observation;
        final Object waiter;
        final long start = System.nanoTime();

        Attempt(LockRequest request, RedisLock lock, long ownerId, @Nullable Thread thread) {
            this.request = request;
            this.lock = lock;
            this.ownerId = ownerId;
            this.thread = thread;
            this.observer = LockExecutor.this.observer.get();
            observer.waitStarted(request.template(), request.type());
            this.observation = instrumentation.get().acquireStarted(request, ownerId);
            this.waiter = holds.waitStarted(request, thread);
        }

        @Nullable
        Hold ended(boolean acquired, @Nullable Long token, @Nullable Throwable error) {
            holds.waitEnded(waiter);
            long waited = System.nanoTime() - start;
            if (error != null) {
                observer.acquireEnded(request.template(), request.type(), LockObserver.Outcome.ERROR, waited);
                observation.ended(LockObserver.Outcome.ERROR, error);
                return null;
            }
            if (!acquired) {
                observer.acquireEnded(request.template(), request.type(), LockObserver.Outcome.TIMEOUT, waited);
                observation.ended(LockObserver.Outcome.TIMEOUT, null);
                return null;
            }
            observer.acquireEnded(request.template(), request.type(), LockObserver.Outcome.ACQUIRED, waited);
            LockInstrumentation.Held held = observation.acquired();
            // A red lock's members report events under the plain lock name, not the composite's name.
            String holdName = request.type() == LockType.RED && request.names().size() == 1
                    ? request.names().get(0)
                    : lock.getName();
            ActiveHolds.Entry entry = holds.register(request, holdName, ownerId, thread);
            Hold hold = new Hold(lock, request, ownerId, entry, System.nanoTime(), token, held);
            live.add(hold);
            if (scheduler != null && maxHold != null && request.leaseTime().isNegative()) {
                hold.maxHoldTask =
                        scheduler.schedule(() -> maxHoldReached(hold), maxHold.toMillis(), TimeUnit.MILLISECONDS);
            }
            return hold;
        }
    }

    /**
     * Defers the release of a hold whose minimum hold is not over: the hold stays registered and
     * renewed, and is released by a scheduler when the time is up, so no caller thread sleeps.
     */
    private boolean deferRelease(Hold hold) {
        Duration minHold = hold.request.minHold();
        if (minHold.isZero() || hold.deferred || hold.unlocked.get() || hold.entry.lost || shuttingDown) {
            return false;
        }
        long remaining = minHold.toNanos() - (System.nanoTime() - hold.acquiredNanos);
        if (remaining <= 0) {
            return false;
        }
        hold.deferred = true;
        deferrals().schedule(() -> release(hold), remaining, TimeUnit.NANOSECONDS);
        return true;
    }

    private synchronized ScheduledExecutorService deferrals() {
        ScheduledExecutorService service = deferrals;
        if (service == null) {
            service = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "distlock-min-hold");
                thread.setDaemon(true);
                return thread;
            });
            deferrals = service;
        }
        return service;
    }

    /**
     * Throws when the hold's lease was lost and the policy is {@code throw}.
     * @param hold the hold
     * @throws LockLeaseExpiredException if so
     */
    public void checkLeaseLost(Hold hold) {
        if (hold.entry.lost && holds.policy() == dev.distlock.spring.LeaseLostPolicy.THROW) {
            throw new LockLeaseExpiredException(hold.lock.getName(), hold.request.description());
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
        Duration lease = hold.request.leaseTime();
        if (!hold.entry.lost
                && !hold.unlocked.get()
                && !lease.isNegative()
                && System.nanoTime() - hold.acquiredNanos >= lease.toNanos()) {
            holds.leaseLost(hold.entry.lockName(), hold.ownerId);
        }
        return hold.entry.lost;
    }

    /**
     * Refuses every acquisition from now on with {@link LockShutdownException}; holds already taken
     * stay held and renewed.
     */
    public void beginShutdown() {
        shuttingDown = true;
    }

    /**
     * Accepts acquisitions again, after a lifecycle restart.
     */
    public void endShutdown() {
        shuttingDown = false;
    }

    /**
     * Waits until every hold taken through this executor is released, or the time runs out.
     * @param timeout longest wait
     * @return the number of holds still held
     * @throws InterruptedException if interrupted
     */
    public int awaitReleased(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (liveMonitor) {
            while (!live.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                TimeUnit.NANOSECONDS.timedWait(liveMonitor, left);
            }
        }
        return live.size();
    }

    /**
     * Reports every remaining hold lost (so the lease-lost policy applies to the method still
     * running) and releases it.
     * @return how many holds were released
     */
    public int releaseRemaining() {
        int count = 0;
        for (Hold hold : List.copyOf(live)) {
            if (!hold.deferred) {
                logger.warn(
                        "Releasing lock '{}' at shutdown while {} still runs",
                        hold.lock.getName(),
                        hold.request.description());
                holds.leaseLost(hold.entry.lockName(), hold.ownerId);
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
                hold.lock.getName(),
                hold.request.description(),
                maxHold);
        try {
            if (hold.unlocked.compareAndSet(false, true)) {
                hold.lock.unlock(hold.ownerId);
            }
        } catch (RuntimeException ex) {
            logger.debug("Releasing lock '{}' at max-hold failed", hold.lock.getName(), ex);
        }
        holds.leaseLost(hold.entry.lockName(), hold.ownerId);
    }

    private static long millis(Duration duration) {
        return duration.isNegative() ? -1 : duration.toMillis();
    }

    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
        ScheduledExecutorService service = deferrals;
        if (service != null) {
            service.shutdownNow();
        }
    }

    /** A lock held through this executor. */
    public static final class Hold {

        final RedisLock lock;
        final LockRequest request;
        final long ownerId;
        final ActiveHolds.Entry entry;
        final long acquiredNanos;
        /** Set by whoever sends the unlock: the release, or the max-hold cap. */
        final AtomicBoolean unlocked = new AtomicBoolean();
        /** Set by the one release that does the bookkeeping, when a cancel races a completion. */
        final AtomicBoolean finished = new AtomicBoolean();

        volatile boolean deferred;
        volatile @Nullable ScheduledFuture<?> maxHoldTask;
        private final @Nullable Long token;
        final LockInstrumentation.Held held;

        Hold(
                RedisLock lock,
                LockRequest request,
                long ownerId,
                ActiveHolds.Entry entry,
                long acquiredNanos,
                @Nullable Long token,
                LockInstrumentation.Held held) {
            this.token = token;
            this.held = held;
            this.lock = lock;
            this.request = request;
            this.ownerId = ownerId;
            this.entry = entry;
            this.acquiredNanos = acquiredNanos;
        }

        /** @return resolved lock name */
        public String name() {
            return lock.getName();
        }

        /** @return lock type */
        public LockType type() {
            return request.type();
        }

        /** @return whether the hold is still valid as far as this instance knows */
        public boolean isHeld() {
            return !unlocked.get() && !entry.lost;
        }

        /** @return fencing token, or {@code null} when unfenced */
        public @Nullable Long fencingToken() {
            return token;
        }

        /**
         * Sets what to run to cancel the guarded work when the lease is lost (policy {@code interrupt}).
         * @param canceller cancels the future or subscription
         */
        public void onLeaseLost(Runnable canceller) {
            entry.canceller = canceller;
        }
    }
}
