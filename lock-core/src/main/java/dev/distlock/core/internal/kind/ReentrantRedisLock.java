package dev.distlock.core.internal.kind;

import dev.distlock.core.LockKind;
import dev.distlock.core.internal.acquire.Attempt;
import dev.distlock.core.internal.acquire.AttemptGrant;
import dev.distlock.core.internal.acquire.SingleKeyAcquisition;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.pubsub.ChannelWaiters;
import dev.distlock.core.internal.pubsub.UnlockSubscriptions;
import dev.distlock.core.internal.script.ForceRelease;
import dev.distlock.core.internal.script.LuaScript;
import dev.distlock.core.internal.script.ReentrantAcquire;
import dev.distlock.core.internal.script.ReentrantPassWakeup;
import dev.distlock.core.internal.script.ReentrantRelease;
import dev.distlock.core.internal.script.Scripts;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redisson's {@code RLock}: hash at the lock key, owner field to hold count, lease as the key's
 * TTL, unlock message {@code 0} on {@code redisson_lock__channel:{name}}.
 *
 * <p>Targeted wake-ups (not in a cluster, where PUBLISH cannot tell whether anyone listened): a
 * client with a parked waiter lists itself in {@code distlock_lock_waiters:{name}} and also
 * listens on its own channel {@code distlock_lock__wake:{name}:<clientId>}. A release wakes one
 * listed client instead of every client, and broadcasts on the shared channel only when no listed
 * client listens, which is also when Redisson's waiters are told. A client is unlisted when its
 * last local waiter leaves; the listing set expires a little after the longest a live waiter parks
 * (the holder's lease), so entries of clients that died do not outlive them for long, and a release
 * that finds nobody listening on a listed client's channel unlists it.
 */
public class ReentrantRedisLock extends AbstractRedisLock {

    private static final Logger log = LoggerFactory.getLogger(ReentrantRedisLock.class);

    /** @return the channel on which releases are announced */
    protected final String channel() {
        return layout.channel();
    }

    /** Acquire modes by re-entry mode ('0', '1', '2') and listing (none, list, list and unlist). */
    private static final String[][] ACQUIRE_MODES = {
        {"0", "0l", "0lu"},
        {"1", "1l", "1lu"},
        {"2", "2l", "2lu"}
    };

    /**
     * Creates the lock.
     * @param engine the client's engine
     * @param name lock name
     */
    public ReentrantRedisLock(LockEngine engine, String name) {
        super(engine, name);
    }

    @Override
    protected LockKind kind() {
        return LockKind.REENTRANT;
    }

    /** @return whether this kind wakes one listed client rather than broadcasting */
    protected boolean targetedWakeups() {
        return engine.connector().exactSubscriberCounts();
    }

    @Override
    protected CompletableFuture<@Nullable Long> acquireOnce(Attempt attempt, AttemptGrant grant) {
        long leaseMillis = attempt.leaseMillis();
        long ownerId = attempt.ownerId();
        ChannelWaiters waiting = attempt.waiting();
        boolean listed = waiting != null && targetedWakeups();
        // Callers queued behind this one in the local line wait for the release of its grant: stay listed.
        boolean unregister =
                listed && waiting.waiting() <= 1 && !engine.waiterLines().hasQueued(key);
        SingleKeyAcquisition call = attempt.call();
        if (call != null) {
            call.keptListing(listed && !unregister);
        }
        // Only an owner this client knows to hold the lock can be re-entering; everyone else skips
        // the owner check. An acquisition whose reply was lost is then not mistaken for a re-entry.
        String mode = ACQUIRE_MODES[grant.mode().code() - '0'][listed ? (unregister ? 2 : 1) : 0];
        String grantId = grant.attemptId();
        String field = ownerField(ownerId);
        CompletableFuture<@Nullable Long> reply = new ReentrantAcquire(
                        key,
                        grantId != null && layout.declaresCompanions() ? layout.grantRecord(field) : null,
                        leaseMillis,
                        field,
                        mode,
                        listed ? engine.listingSlackText() : null,
                        grantId)
                .run(engine.scripts());
        if (unregister) {
            reply = reply.thenApply(ttl -> {
                if (ttl == null && waiting.waiting() > 1) {
                    // Another local waiter joined meanwhile and its listing may have been removed with ours.
                    engine.connector().commands().sadd(layout.waitingClients(), engine.clientId());
                }
                return ttl;
            });
        }
        return reply;
    }

    @Override
    protected boolean releaseWakesLocalWaiters(SingleKeyAcquisition granted) {
        return !targetedWakeups() || granted.keptListing();
    }

    @Override
    protected boolean waitsInLocalLine(long ownerId) {
        // An owner whose earlier attempt may have taken the lock unseen tries at once, to adopt that hold.
        return engine.holds().get(key, ownerField(ownerId)) == null
                && !lostGrants().lost(ownerId);
    }

    /**
     * Returns this lock's acquire mode in an attempt that takes it with other locks in one script,
     * and marks the attempt as uncertain under its id, as {@link #tryOnce} does for one lock.
     * @param ownerId owner
     * @param attemptId the id the script records with a fresh grant
     * @param toCaller completed with the reply: a reply nobody received keeps the mark
     * @return {@code '0'}, {@code '1'} or {@code '2'}, as {@code reentrant-acquire} reads them
     */
    char batchMode(long ownerId, String attemptId, CompletableFuture<?> toCaller) {
        return lostGrants().begin(ownerId, attemptId, toCaller).mode().code();
    }

    /**
     * Ends an acquisition of this lock taken with other locks in one script: see
     * {@link dev.distlock.core.internal.acquire.LostGrants#ended}.
     */
    void acquisitionEnded(long ownerId, boolean acquired, long leaseMillis) {
        lostGrants().ended(ownerId, acquired, leaseMillis);
    }

    /** @return the client's engine, for the locks taken with others in one script */
    LockEngine lockEngine() {
        return engine;
    }

    /** @return the lock key */
    String lockKey() {
        return key;
    }

    /** @return the owner field of an owner */
    String field(long ownerId) {
        return ownerField(ownerId);
    }

    /** @return whether the scripts are given this lock's companion keys (in a cluster) */
    boolean declaresCompanions() {
        return layout.declaresCompanions();
    }

    /** @return an owner's grant record */
    String grantRecord(long ownerId) {
        return layout.grantRecord(ownerField(ownerId));
    }

    /** @return the unlock latch of an owner's release request */
    String unlockLatch(long ownerId, String requestNumber) {
        return layout.unlockLatch(ownerField(ownerId), requestNumber);
    }

    @Override
    protected CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId, String requestId) {
        return release(leaseMillis, ownerId, requestId, "");
    }

    /** Releases the hold one of the lost attempts (ids, space-separated) took, and no other. */
    @Override
    protected CompletableFuture<@Nullable Long> releaseLostGrant(long leaseMillis, long ownerId, String lostAttempts) {
        return release(leaseMillis, ownerId, engine.newRequestId(), lostAttempts);
    }

    private CompletableFuture<@Nullable Long> release(
            long leaseMillis, long ownerId, String requestId, String lostAttempts) {
        String field = ownerField(ownerId);
        boolean declared = layout.declaresCompanions();
        ReentrantRelease release = new ReentrantRelease(
                key,
                declared ? layout.unlockLatch(field, requestId) : null,
                declared ? layout.grantRecord(field) : null,
                leaseMillis,
                field,
                requestId,
                engine.unlockLatchMillis(),
                wakeFlags(),
                lostAttempts);
        // The clean-up after a lost reply is sent while Redis may not be answering, and may be the first
        // use of this script on the server (a multi lock's members never run it otherwise): by EVALSHA,
        // a NOSCRIPT answered after the timeout would never be resent, and the lost grant would stay.
        return lostAttempts.isEmpty() ? release.run(engine.scripts()) : release.runBySource(engine.scripts());
    }

    /** @return how a release wakes waiters: {@code t} targeted, {@code s} sharded pub/sub */
    String wakeFlags() {
        boolean sharded = engine.connector().publishesSharded();
        return targetedWakeups() ? (sharded ? "ts" : "t") : (sharded ? "s" : "");
    }

    @Override
    protected LuaScript renewScript() {
        return Scripts.RENEW;
    }

    @Override
    protected String wakeChannel(long ownerId) {
        return channel();
    }

    @Override
    protected ChannelWaiters join(long ownerId) {
        if (!targetedWakeups()) {
            return super.join(ownerId);
        }
        return engine.subscriptions().join(channel(), layout.clientWakeChannel(), this::passWakeup, this::unlist);
    }

    /**
     * Unlists this client once its last local waiter left, however it left (acquired, timed out,
     * interrupted): deciding it per waiter at abandon time misses waiters that leave together.
     */
    private void unlist() {
        engine.calls()
                .call(() -> engine.connector()
                        .commands()
                        .srem(layout.waitingClients(), engine.clientId())
                        .toCompletableFuture())
                .exceptionally(failure -> {
                    // Harmless: the listing expires by itself, and a release that finds nobody listening
                    // on this client's channel unlists it and wakes someone else.
                    log.debug(
                            "Could not unlist client {} from the waiters of lock '{}'",
                            engine.clientId(),
                            name,
                            failure);
                    return null;
                });
    }

    private void passWakeup() {
        engine.calls()
                .call(() -> new ReentrantPassWakeup(
                                key,
                                channel(),
                                layout.waitingClients(),
                                UnlockSubscriptions.WAKE_ONE,
                                layout.wakePrefix(),
                                engine.clientId(),
                                engine.connector().publishCommand())
                        .run(engine.scripts()))
                .exceptionally(failure -> {
                    log.debug("Could not pass on a wake-up for lock '{}'", name, failure);
                    return null;
                });
    }

    @Override
    protected CompletableFuture<Boolean> forceRelease() {
        return new ForceRelease(
                        key,
                        channel(),
                        UnlockSubscriptions.WAKE_ONE,
                        engine.connector().publishCommand())
                .run(engine.scripts())
                .thenApply(deleted -> deleted != null && deleted == 1);
    }
}
