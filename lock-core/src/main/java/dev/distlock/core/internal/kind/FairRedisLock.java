package dev.distlock.core.internal.kind;

import dev.distlock.core.LockKind;
import dev.distlock.core.internal.acquire.Attempt;
import dev.distlock.core.internal.acquire.AttemptGrant;
import dev.distlock.core.internal.acquire.SingleKeyAcquisition;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.engine.OwnerWaitEntries;
import dev.distlock.core.internal.pubsub.UnlockSubscriptions;
import dev.distlock.core.internal.script.FairAbandon;
import dev.distlock.core.internal.script.FairAcquire;
import dev.distlock.core.internal.script.FairForceRelease;
import dev.distlock.core.internal.script.FairRelease;
import dev.distlock.core.internal.script.LuaScript;
import dev.distlock.core.internal.script.Scripts;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Redisson's {@code RFairLock}: the reentrant hash at the lock key, plus a queue of waiting owners
 * ({@code redisson_lock_queue:{name}}) and their deadlines ({@code redisson_lock_timeout:{name}}).
 * Only the queue head may take a free lock, and only the head is told of a release, on its own
 * channel {@code redisson_lock__channel:{name}:<owner>}.
 *
 * <p>A deadline is a liveness lease on the server clock: each attempt of a live waiter sets it to
 * now + {@code fairLockWaitTimeout}, and a waiter attempts at least every third of that timeout. A
 * waiter whose process died therefore leaves the queue within one timeout, wherever it stood; every
 * script purges expired waiters, and waiters park no longer than the earliest deadline of the
 * others so that the purge is prompt. Waiters that are not at the head do not poll a free lock: they
 * only renew their place every third of the timeout.
 *
 * <p>The queue holds one entry per owner, so the calls of one owner waiting here at once (an
 * explicit owner id used by several tasks) share a place: a call that gives up withdraws it only
 * when no other call of its owner still waits for this lock on this client ({@link OwnerWaitEntries}).
 */
public class FairRedisLock extends AbstractRedisLock {

    /**
     * Creates the lock.
     * @param engine the client's engine
     * @param name lock name
     */
    public FairRedisLock(LockEngine engine, String name) {
        super(engine, name);
    }

    @Override
    protected LockKind kind() {
        return LockKind.FAIR;
    }

    /** Which owner's entry in this lock's queue {@link OwnerWaitEntries} keeps count for. */
    private record QueuePlace(String key, String ownerField) {}

    private QueuePlace queuePlace(long ownerId) {
        return new QueuePlace(key, ownerField(ownerId));
    }

    private long waiterTimeoutMillis() {
        return engine.options().fairLockWaitTimeout().toMillis();
    }

    @Override
    protected CompletableFuture<@Nullable Long> acquireOnce(Attempt attempt, AttemptGrant grant) {
        SingleKeyAcquisition call = attempt.call();
        if (call != null && attempt.waitMillis() != 0) {
            // Before the attempt is sent: from then on a call of this owner that gives up must leave
            // the entry this attempt may queue or renew.
            engine.waitEntries().queues(queuePlace(attempt.ownerId()), call);
        }
        long timeout = waiterTimeoutMillis();
        boolean declared = layout.declaresCompanions();
        String field = ownerField(attempt.ownerId());
        return new FairAcquire(
                        key,
                        declared ? layout.queue() : null,
                        declared ? layout.deadlines() : null,
                        declared && grant.attemptId() != null ? layout.grantRecord(field) : null,
                        attempt.leaseMillis(),
                        field,
                        attempt.waitMillis(),
                        timeout,
                        Math.max(1, timeout / 3),
                        publishFlags(),
                        grant.idText(),
                        grant.modeText())
                .run(engine.scripts());
    }

    @Override
    protected CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId, String requestId) {
        return fairRelease(leaseMillis, ownerId, requestId, "").run(engine.scripts());
    }

    @Override
    protected CompletableFuture<@Nullable Long> releaseLostGrant(long leaseMillis, long ownerId, String lostAttempts) {
        return fairRelease(leaseMillis, ownerId, engine.newRequestId(), lostAttempts)
                .runBySource(engine.scripts());
    }

    private FairRelease fairRelease(long leaseMillis, long ownerId, String requestId, String lostAttempts) {
        String field = ownerField(ownerId);
        boolean declared = layout.declaresCompanions();
        return new FairRelease(
                key,
                declared ? layout.queue() : null,
                declared ? layout.deadlines() : null,
                declared ? layout.unlockLatch(field, requestId) : null,
                declared ? layout.grantRecord(field) : null,
                leaseMillis,
                field,
                requestId,
                engine.unlockLatchMillis(),
                publishFlags(),
                lostAttempts);
    }

    @Override
    protected CompletableFuture<Void> abandonWait(SingleKeyAcquisition call) {
        long ownerId = call.ownerId();
        if (!engine.waitEntries().leaves(queuePlace(ownerId), call)) {
            // The entry is the place of the owner's call that still waits, which asked before anyone
            // queued behind it: withdrawn, that call would lose its turn to them.
            return CompletableFuture.completedFuture(null);
        }
        // Left behind, the entry would hold up the queue until its deadline.
        return withdrawWaiter(
                () -> new FairAbandon(
                                key,
                                layout.queue(),
                                layout.deadlines(),
                                layout.channel(),
                                UnlockSubscriptions.WAKE_ONE,
                                ownerField(ownerId),
                                waiterTimeoutMillis(),
                                engine.connector().publishCommand())
                        .runBySource(engine.scripts()),
                "leave the queue of",
                "fair lock",
                "its entry's deadline lapses within one waiter timeout and the next script purges it");
    }

    @Override
    protected void acquisitionEnded(SingleKeyAcquisition call, boolean acquired, long leaseMillis) {
        engine.waitEntries().ended(queuePlace(call.ownerId()), call);
    }

    @Override
    protected LuaScript renewScript() {
        return Scripts.RENEW;
    }

    @Override
    protected String wakeChannel(long ownerId) {
        return layout.waiterChannel(ownerField(ownerId));
    }

    @Override
    protected CompletableFuture<Boolean> forceRelease() {
        return new FairForceRelease(
                        key,
                        layout.queue(),
                        layout.deadlines(),
                        layout.channel(),
                        UnlockSubscriptions.WAKE_ONE,
                        engine.connector().publishCommand())
                .run(engine.scripts())
                .thenApply(deleted -> deleted != null && deleted == 1);
    }
}
