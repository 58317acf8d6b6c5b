package dev.distlock.core.internal.acquire;

import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.engine.ReplyDeadlines;
import dev.distlock.core.internal.pubsub.ChannelWaiters;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Sends the acquire attempts of one {@link SingleKeyAcquisition}, each within one command timeout: on the
 * shared connection, or, with the replica-sync guard on, through {@link ReplicaSync}, which undoes
 * a grant too few replicas saw.
 */
final class Attempts {

    private final KindHooks lock;
    private final LockEngine engine;
    private final long ownerId;
    /** The lease each attempt asks for: the watchdog's when the caller asked for the watchdog. */
    private final long lease;

    /** The replica-sync guard, or {@code null} when it is off (the usual case: nothing to confirm). */
    private final @Nullable ReplicaSync sync;

    Attempts(KindHooks lock, long leaseMillis, long ownerId) {
        this.lock = lock;
        this.engine = lock.engine;
        this.ownerId = ownerId;
        this.lease = leaseMillis == LockEngine.WATCHDOG ? engine.watchdogMillis() : leaseMillis;
        this.sync = engine.options().replicaSyncReplicas() > 0 ? new ReplicaSync(engine, lock.name, lock.key) : null;
    }

    /**
     * Runs the kind's acquire script once.
     * @param waiting the local waiters the caller joined, or {@code null}
     * @param waitLeft the caller's remaining wait in ms ({@code 0}: will not wait, {@code -1}: forever)
     * @param call the acquisition
     * @return {@code null} when acquired (and confirmed by enough replicas), else ms to park
     */
    CompletableFuture<@Nullable Long> send(@Nullable ChannelWaiters waiting, long waitLeft, SingleKeyAcquisition call) {
        Attempt once = new Attempt(lease, ownerId, waitLeft, waiting, call);
        // While the client reconnects, the attempt waits for the connection as long as its caller waits.
        long connectBy = call.connectBy();
        CompletableFuture<@Nullable Long> sent = engine.connector().commandsReady()
                ? sendConnected(once, connectBy, call)
                : engine.calls()
                        .connected(lock.name, "acquire", connectBy, call::wanted)
                        .thenCompose(connected -> sendConnected(once, connectBy, call));
        // Without the replica-sync guard a reply is the attempt's outcome as it is.
        return sync == null ? sent : sent.thenCompose(this::confirm);
    }

    /**
     * Sends an attempt from the calling thread straight to the open connection, for a caller that
     * waits for its reply on that thread ({@link ReplyDeadlines#awaitOnThisThread}): no stage retries
     * it unwritten or watches its deadline, so the caller must do both with what this returns.
     * @param waitLeft the caller's remaining wait in ms, as for {@link #send}
     * @param call the acquisition
     * @return the kind's reply as the script run completes it (failures unmapped), or {@code null}
     *     when the attempt cannot go straight (not connected, or the replica-sync guard is on)
     */
    @Nullable
    CompletableFuture<@Nullable Long> sendOnThisThread(long waitLeft, SingleKeyAcquisition call) {
        if (sync != null || !engine.connector().commandsReady()) {
            return null;
        }
        try {
            return tryOnce(new Attempt(lease, ownerId, waitLeft, null, call), call);
        } catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /** @return the deadline of an attempt sent now: one command timeout, or the caller's wait for the connection */
    long deadline(SingleKeyAcquisition call) {
        return Math.max(engine.replies().deadline(), call.connectBy());
    }

    private CompletableFuture<@Nullable Long> sendConnected(Attempt once, long connectBy, SingleKeyAcquisition call) {
        long deadline = engine.replies().deadline();
        // A replica-synced attempt borrows a connection of its own, which may have to be opened.
        ReplicaSync synced = sync;
        CompletableFuture<@Nullable Long> sent = synced != null
                ? engine.calls().offload(() -> synced.acquire(() -> tryOnce(once, call)))
                : engine.calls().call(() -> tryOnce(once, call), connectBy, call::wanted);
        return engine.replies().within(sent, lock.name, "acquire", Math.max(deadline, connectBy));
    }

    private CompletableFuture<@Nullable Long> confirm(@Nullable Long ttl) {
        ReplicaSync synced = java.util.Objects.requireNonNull(sync);
        if (ttl != null) {
            return CompletableFuture.completedFuture(synced.refused(ttl));
        }
        return synced.confirm(() -> lock.release(lock.leaseAfterGiveBack(ownerId, lease), ownerId));
    }

    /** Runs the kind's script, noting when: the lease of a grant is counted from the send. */
    private CompletableFuture<@Nullable Long> tryOnce(Attempt once, SingleKeyAcquisition call) {
        call.attemptSent();
        return lock.tryOnce(once);
    }

    /** @return gives back a grant nobody will use (the caller cancelled as it came) */
    CompletableFuture<@Nullable Long> giveBack() {
        return engine.calls().call(() -> lock.release(lock.leaseAfterGiveBack(ownerId, lease), ownerId));
    }

    /** Throws when the last attempt was refused for want of replicas, rather than by contention. */
    void throwIfShortfall() {
        if (sync != null) {
            sync.throwIfShortfall();
        }
    }

    /** @return the kind's wake-up channel joined, or {@code null} when pub/sub cannot be used now (bounded parks instead) */
    @Nullable
    ChannelWaiters join() {
        try {
            return lock.join(ownerId);
        } catch (RuntimeException ex) {
            engine.calls().failIfClosed(lock.name, ex);
            return null;
        }
    }

    /**
     * Waits for a joined channel's subscription, at most a command timeout (and the caller's wait):
     * a slow SUBSCRIBE is not fatal, since parks are bounded by the holder's TTL anyway.
     * @param joined the channel's waiters
     * @param remainingMillis the caller's remaining wait
     * @return completes when subscribed or when the bound passes
     */
    CompletableFuture<?> subscribed(ChannelWaiters joined, long remainingMillis) {
        long bound = Math.min(engine.options().commandTimeout().toMillis(), remainingMillis);
        CompletableFuture<Void> timeUp = engine.calls().delay(bound);
        return CompletableFuture.anyOf(joined.ready(), timeUp).whenComplete((ignored, error) -> timeUp.complete(null));
    }
}
