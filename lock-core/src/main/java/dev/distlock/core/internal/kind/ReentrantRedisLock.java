package dev.distlock.core.internal.kind;

import dev.distlock.core.LockKind;
import dev.distlock.core.internal.acquire.Attempt;
import dev.distlock.core.internal.acquire.SingleKeyAcquisition;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.hold.UncertainAcquisitions;
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
    protected CompletableFuture<@Nullable Long> tryOnce(Attempt attempt) {
        long leaseMillis = attempt.leaseMillis();
        long ownerId = attempt.ownerId();
        ChannelWaiters waiting = attempt.waiting();
        // Only an owner this client knows to hold the lock can be re-entering; everyone else skips
        // the owner check. An acquisition whose reply was lost is then not mistaken for a re-entry.
        boolean mayReenter = engine.holds().get(key, ownerField(ownerId)) != null;
        AttemptId attemptId = attemptId(ownerId);
        UncertainAcquisitions uncertain = engine.uncertainAcquisitions();
        int reentry = reentryMode(attemptId, mayReenter);
        boolean listed = waiting != null && targetedWakeups();
        // Callers queued behind this one in the local line wait for the release of its grant: stay listed.
        boolean unregister =
                listed && waiting.waiting() <= 1 && !engine.waiterLines().hasQueued(key);
        SingleKeyAcquisition call = attempt.call();
        if (call != null) {
            call.keptListing(listed && !unregister);
        }
        String mode = ACQUIRE_MODES[reentry][listed ? (unregister ? 2 : 1) : 0];
        // The caller's future is completed only here, and a caller that stops waiting cancels it: exactly
        // one of the two wins, so a reply nobody received keeps the attempt marked as uncertain.
        CompletableFuture<@Nullable Long> toCaller = new CompletableFuture<>();
        String grantId = null;
        if (!mayReenter) {
            // A re-entry whose reply is lost leaves one hold too many, which the owner's last unlock releases.
            grantId = engine.newRequestId();
            uncertain.begin(attemptId, grantId, toCaller);
        }
        CompletableFuture<@Nullable Long> reply;
        try {
            String field = ownerField(ownerId);
            reply = new ReentrantAcquire(
                            key,
                            grantId != null && layout.declaresCompanions() ? layout.grantRecord(field) : null,
                            leaseMillis,
                            field,
                            mode,
                            listed ? engine.listingSlackText() : null,
                            grantId)
                    .run(engine.scripts());
        } catch (RuntimeException ex) {
            toCaller.completeExceptionally(ex);
            return toCaller;
        }
        if (unregister) {
            reply = reply.thenApply(ttl -> {
                if (ttl == null && waiting.waiting() > 1) {
                    // Another local waiter joined meanwhile and its listing may have been removed with ours.
                    engine.connector().commands().sadd(layout.waitingClients(), engine.clientId());
                }
                return ttl;
            });
        }
        reply.whenComplete((ttl, failure) -> {
            if (failure != null) {
                // The call may still have run: the mark stays, the next attempt adopts what it took.
                toCaller.completeExceptionally(failure);
            } else {
                toCaller.complete(ttl);
            }
        });
        return toCaller;
    }

    @Override
    protected boolean releaseWakesLocalWaiters(SingleKeyAcquisition granted) {
        return !targetedWakeups() || granted.keptListing();
    }

    @Override
    protected boolean waitsInLocalLine(long ownerId) {
        if (engine.holds().get(key, ownerField(ownerId)) != null) {
            return false;
        }
        // An owner whose earlier attempt may have taken the lock unseen tries at once, to adopt that hold.
        // Only a lost reply counts: the answered attempts of the owner's other calls (a parked head) are
        // still marked until pruned, and would send every later call of that owner past the line.
        UncertainAcquisitions uncertain = engine.uncertainAcquisitions();
        return !uncertain.contains(attemptId(ownerId));
    }

    /** Which acquisitions {@link UncertainAcquisitions} tells apart: one lock key and owner field. */
    private record AttemptId(String key, String ownerField) {}

    private AttemptId attemptId(long ownerId) {
        return new AttemptId(key, ownerField(ownerId));
    }

    @Override
    protected void acquisitionEnded(SingleKeyAcquisition call, boolean acquired, long leaseMillis) {
        acquisitionEnded(call.ownerId(), acquired, leaseMillis);
    }

    /**
     * Ends an acquisition of this lock, whichever path took it: forgets the answered attempts of an
     * owner that got it, or releases what a lost attempt of an owner that gave up may have taken.
     */
    void acquisitionEnded(long ownerId, boolean acquired, long leaseMillis) {
        if (acquired) {
            engine.uncertainAcquisitions().acquired(attemptId(ownerId));
        } else {
            releaseUnseenHold(leaseMillis, ownerId);
        }
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
        boolean mayReenter = engine.holds().get(key, ownerField(ownerId)) != null;
        AttemptId id = attemptId(ownerId);
        int reentry = reentryMode(id, mayReenter);
        if (!mayReenter) {
            engine.uncertainAcquisitions().begin(id, attemptId, toCaller);
        }
        return (char) ('0' + reentry);
    }

    /**
     * Returns the acquire script's re-entry mode: {@code 1} when the owner may hold the lock (a hold
     * this client knows, or another attempt of the owner in flight, which may be granted first: this
     * one then counts as a re-entry, so that Redis holds as many as the callers are told), {@code 2}
     * when an earlier attempt's reply was lost (adopt what it took), else {@code 0}.
     */
    private int reentryMode(AttemptId id, boolean mayReenter) {
        UncertainAcquisitions uncertain = engine.uncertainAcquisitions();
        return mayReenter || uncertain.inFlight(id) ? 1 : uncertain.contains(id) ? 2 : 0;
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

    /**
     * The acquire call ends without a hold, but one of its attempts may have taken one whose reply
     * never reached it: release that once, so that it neither blocks the lock for a lease nor stays
     * in the bookkeeping. The release names the lost attempts and Redis checks them against the
     * owner's grant record, so it cannot take away a hold a later attempt of the owner was granted.
     */
    private void releaseUnseenHold(long leaseMillis, long ownerId) {
        if (engine.isClosed() || engine.holds().get(key, ownerField(ownerId)) != null) {
            return;
        }
        long lease = leaseMillis == LockEngine.WATCHDOG ? engine.watchdogMillis() : leaseMillis;
        engine.uncertainAcquisitions()
                .gaveUp(
                        attemptId(ownerId),
                        lostAttempts -> engine.calls().call(() -> releaseLostGrant(lease, ownerId, lostAttempts)),
                        lease + engine.options().commandTimeout().toMillis(),
                        engine.scheduler(),
                        name);
    }

    @Override
    protected CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId, String requestId) {
        return release(leaseMillis, ownerId, requestId, "");
    }

    /** Releases the hold one of the lost attempts (ids, space-separated) took, and no other. */
    private CompletableFuture<@Nullable Long> releaseLostGrant(long leaseMillis, long ownerId, String lostAttempts) {
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
