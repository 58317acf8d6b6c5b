package dev.distlock.core.internal.acquire;

import dev.distlock.core.internal.Failures;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.hold.Hold;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One unlock call, shared by every kind: the release script with its unlock latch (a release
 * whose reply was lost is retried and replays its first outcome) and the bookkeeping of the hold.
 *
 * <p>The client never releases a hold in Redis on the strength of its own count: tasks sharing an
 * owner id book their grants and releases on their own threads, so that count may lag behind the
 * order in which Redis applied them, and a hold Redis still counts after this client's last unlock
 * may be another task's grant whose reply is on its way. Holds nobody will unlock (a failed unlock)
 * are no longer renewed once none is left here, and expire with their lease.
 */
public final class Release {

    private final KindHooks lock;
    private final LockEngine engine;
    private final long ownerId;
    /** The unlocking thread, which may be the owner: the error messages then name it. */
    private final Thread caller = Thread.currentThread();

    private final @Nullable Hold hold;
    /** The acquisition this unlock gives back: the owner's first to expire when the unlock started. */
    private final @Nullable Object grant;

    private final long lease;

    /**
     * An unlock, which does not say which of the owner's holds it ends. Call it on the unlocking
     * thread: it may be the owner, which the error messages then name.
     */
    public Release(KindHooks lock, long ownerId) {
        this(lock, ownerId, false);
    }

    private Release(KindHooks lock, long ownerId, boolean givingBack) {
        this.lock = lock;
        this.engine = lock.engine;
        this.ownerId = ownerId;
        this.hold = engine.holds().get(lock.key, lock.ownerField(ownerId));
        long watchdog = engine.watchdogMillis();
        if (givingBack) {
            this.grant = hold == null ? null : hold.latestGrant();
            // Positive: set as it is, so that the given-back grant's lease does not outlive it.
            this.lease = hold == null ? watchdog : hold.leaseAfterGivingBack(grant, watchdog);
        } else {
            this.grant = hold == null ? null : hold.grantToGiveBack();
            // Negative: kept at least, never shortened, as the scripts read it (owner-lease.lua). This
            // client may not have booked yet a grant of the same owner that Redis applied before it.
            this.lease = -(hold == null ? watchdog : hold.leaseAfterRelease(watchdog));
        }
    }

    /**
     * The give-back of the grant the owner took last, by a composite acquisition that took it and
     * will not use it (its other members were refused, or its caller cancelled): that grant is known,
     * so the holds that remain get exactly the lease they call for.
     * @param lock the member lock
     * @param ownerId the owner
     * @return the release
     */
    public static Release givingBack(KindHooks lock, long ownerId) {
        return new Release(lock, ownerId, true);
    }

    /** @return completes once one hold is released; fails as {@code unlock} throws */
    public CompletableFuture<Void> run() {
        begin();
        return releaseOnce().handle(this::finish).thenCompose(next -> next);
    }

    /**
     * Unlocks for a caller that waits on its own thread: while connected, the release script is sent
     * from this thread and its reply waited for here; only a release that must be sent again (its
     * reply was lost, or it was refused unwritten) or that leaves holds to clean up goes on as
     * {@link #run()} does.
     */
    public void runOnThisThread() {
        if (!engine.connector().commandsReady()) {
            Blocking.join(run());
            return;
        }
        begin();
        String requestId = engine.newRequestId();
        long deadline = engine.replies().deadline();
        CompletableFuture<@Nullable Long> reply = sendOnce(requestId);
        CompletableFuture<@Nullable Long> awaited =
                engine.replies().awaitOnThisThread(reply, lock.name, "release", deadline);
        Long result = null;
        Throwable failure = null;
        try {
            result = awaited.join();
        } catch (RuntimeException ex) {
            failure = Failures.cause(ex);
        }
        if (failure == null) {
            Blocking.join(finish(result, null));
            return;
        }
        CompletableFuture<@Nullable Long> next;
        if (awaited != reply) {
            next = sendAgain(failure, requestId, deadline);
        } else if (Failures.unwritten(failure)) {
            // Never written: sent the asynchronous way, which waits for the reconnect and may still retry.
            next = releaseOnce(requestId, deadline);
        } else {
            // Mapped as a reply deadline maps the failure of a release sent the asynchronous way.
            next = sendAgain(engine.calls().failed(failure, lock.name, "release"), requestId, deadline);
        }
        Blocking.join(next.handle(this::finish).thenCompose(then -> then));
    }

    private CompletableFuture<@Nullable Long> sendOnce(String requestId) {
        try {
            return lock.release(lease, ownerId, requestId);
        } catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * Marks the hold as being released (no renewal is sent for it from now on) and tells the
     * listeners of a last release. A caller that sends the release script itself (several locks in
     * one script) calls this before sending it, and {@link #finish} with its reply.
     */
    public void begin() {
        if (hold != null) {
            engine.holds().releasing(hold);
            if (hold.count() <= 1) {
                lock.events().releasing(ownerId);
            }
        }
    }

    /** @return the lease the release keeps at least while the owner's holds remain, in ms, negated */
    public long lease() {
        return lease;
    }

    /**
     * Ends the release with what the release script answered.
     * @param result {@code null} when the owner held nothing, {@code 0} when holds remain, {@code 1} when released
     * @param failure the failure when no answer came, else {@code null}
     * @return completes once the bookkeeping is done; fails as {@code unlock} throws
     */
    public CompletableFuture<Void> finish(@Nullable Long result, @Nullable Throwable failure) {
        if (failure != null) {
            failed();
            return CompletableFuture.failedFuture(failure);
        }
        return released(result);
    }

    /**
     * The release may or may not have run, but the caller is done with this acquisition: give it
     * back here, so that the owner's last unlock finds (and releases) any hold Redis still counts
     * instead of leaving it to the watchdog for good.
     */
    private void failed() {
        if (hold == null) {
            return;
        }
        // Forgotten when none is left, so no longer renewed: if the release did not run, the lock
        // expires within one lease.
        if (engine.holds().released(hold, grant) > 0) {
            // Outer holds remain: keep renewing them.
            hold.releasing(false);
        }
    }

    private CompletableFuture<Void> released(@Nullable Long result) {
        if (result == null) {
            if (hold != null && engine.holds().remove(hold)) {
                engine.leaseLost(hold);
                return CompletableFuture.failedFuture(
                        new IllegalMonitorStateException("Cannot unlock lock '" + lock.name + "': the lease of "
                                + describeOwner() + " expired before unlock, or the lock was force-unlocked"));
            }
            return CompletableFuture.failedFuture(new IllegalMonitorStateException(
                    "Cannot unlock lock '" + lock.name + "': it is not held by " + describeOwner()));
        }
        if (result == 1) {
            if (hold != null && engine.holds().released(hold, grant) > 0) {
                // The owner took the lock again after this release ran and before its reply came: Redis
                // holds that new acquisition, so its record (renewal, unlock bookkeeping) stays.
                hold.releasing(false);
            }
            lock.events().released(ownerId);
            return CompletableFuture.completedFuture(null);
        }
        if (hold != null && engine.holds().released(hold, grant) > 0) {
            hold.releasing(false);
        }
        // None left here while Redis counts more: another task's grant not booked yet, or a hold
        // nobody will unlock, which is no longer renewed and expires with its lease.
        return CompletableFuture.completedFuture(null);
    }

    /** Runs the release script, once more if its reply was lost, all within one command timeout. */
    private CompletableFuture<@Nullable Long> releaseOnce() {
        String requestId = engine.newRequestId();
        if (engine.connector().commandsReady()) {
            return releaseOnce(requestId, engine.replies().deadline());
        }
        return engine.calls()
                .connected(lock.name, "release")
                .thenCompose(
                        connected -> releaseOnce(requestId, engine.replies().deadline()));
    }

    private CompletableFuture<@Nullable Long> releaseOnce(String requestId, long deadline) {
        return engine.replies()
                .within(
                        engine.calls().call(() -> lock.release(lease, ownerId, requestId)),
                        lock.name,
                        "release",
                        deadline)
                .handle((result, failure) -> failure == null
                        ? CompletableFuture.completedFuture(result)
                        : sendAgain(failure, requestId, deadline))
                .thenCompose(next -> next);
    }

    /**
     * Sends a release whose first try failed once more, within the same deadline: the reply may have
     * been lost after the script ran, and the latch makes the retry replay it.
     */
    private CompletableFuture<@Nullable Long> sendAgain(Throwable failure, String requestId, long deadline) {
        if (engine.isClosed() || !engine.replies().before(deadline)) {
            return CompletableFuture.failedFuture(failure);
        }
        return engine.replies()
                .within(
                        engine.calls().call(() -> lock.release(lease, ownerId, requestId)),
                        lock.name,
                        "release",
                        deadline);
    }

    /** Only for messages: built when a release fails, not on every unlock. */
    private String describeOwner() {
        String owner = "client id " + engine.clientId() + ", ";
        if (ownerId == caller.getId()) {
            return owner + "thread '" + caller.getName() + "' (id " + ownerId + ")";
        }
        return owner + "owner id " + ownerId;
    }
}
