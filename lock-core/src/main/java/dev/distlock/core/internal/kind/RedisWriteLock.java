package dev.distlock.core.internal.kind;

import dev.distlock.core.LockKind;
import dev.distlock.core.internal.acquire.Attempt;
import dev.distlock.core.internal.acquire.AttemptGrant;
import dev.distlock.core.internal.acquire.SingleKeyAcquisition;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.engine.OwnerWaitEntries;
import dev.distlock.core.internal.layout.RedissonLayout;
import dev.distlock.core.internal.pubsub.UnlockSubscriptions;
import dev.distlock.core.internal.script.LuaScript;
import dev.distlock.core.internal.script.ReadWriteForceRelease;
import dev.distlock.core.internal.script.ScriptCall;
import dev.distlock.core.internal.script.Scripts;
import dev.distlock.core.internal.script.WriteAbandon;
import dev.distlock.core.internal.script.WriteAcquire;
import dev.distlock.core.internal.script.WriteRelease;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * The write side of Redisson's {@code RReadWriteLock}: owner field {@code <clientId>:<threadId>:write}
 * in the lock hash (mode {@code write}). Re-entry resets the lease. The writer may also take the read
 * side (downgrade); releasing the last write hold then leaves a read lock and wakes waiting readers.
 *
 * <p>A writer that waits records a claim in {@code distlock_rwlock_writers:{name}} (owner -> deadline
 * on the server clock, renewed at every attempt, at least every third of
 * {@code fairLockWaitTimeout}); while a claim is live, new readers stay out, so readers cannot starve
 * writers. The claim is withdrawn when the writer gets the lock or gives up, and lapses if it dies.
 *
 * <p>Redis keeps one claim per owner, so the calls of one owner waiting here at once (an explicit
 * owner id used by several tasks, one trying and the others in the local line) share it: a call that
 * gives up withdraws it only when no other call of its owner still waits for this lock on this
 * client ({@link OwnerWaitEntries}).
 */
public class RedisWriteLock extends AbstractRedisLock {

    private final DeclaredReadHolds readHolds;

    /**
     * Creates the write side.
     * @param engine the client's engine
     * @param name lock name
     */
    public RedisWriteLock(LockEngine engine, String name) {
        super(engine, name);
        this.readHolds = new DeclaredReadHolds(engine, key);
    }

    @Override
    protected LockKind kind() {
        return LockKind.WRITE;
    }

    @Override
    protected String ownerField(long ownerId) {
        return layout.writerField(ownerId);
    }

    /** Which owner's claim in this lock's waiting writers {@link OwnerWaitEntries} keeps count for. */
    private record Claim(String key, String writerField) {}

    private Claim claim(long ownerId) {
        return new Claim(key, ownerField(ownerId));
    }

    private long claimTimeoutMillis() {
        return engine.options().fairLockWaitTimeout().toMillis();
    }

    /**
     * Waiting forever for the write lock while holding the read lock would never end: fail fast.
     * Only this client's owners hold fields of this client, so its own holds tell, without asking Redis.
     */
    @Override
    protected CompletableFuture<Void> beforeAcquire(long waitMillis, long ownerId) {
        if (waitMillis >= 0) {
            return super.beforeAcquire(waitMillis, ownerId);
        }
        String reader = layout.ownerField(ownerId);
        boolean reads = engine.holds().get(key, reader) != null;
        if (reads && engine.holds().get(key, ownerField(ownerId)) == null) {
            return CompletableFuture.failedFuture(new IllegalMonitorStateException("Cannot lock the write lock of"
                    + " read-write lock '" + name + "': owner " + reader + " holds its read lock, and upgrading a"
                    + " read lock to the write lock is not supported (it would wait forever); unlock the read lock"
                    + " first, or use tryLock with a wait"));
        }
        return super.beforeAcquire(waitMillis, ownerId);
    }

    /**
     * Readers all try together, so only writers queue locally; an owner holding either side tries at
     * once, and so does one whose earlier attempt may have taken the lock unseen, to adopt that hold.
     */
    @Override
    protected boolean waitsInLocalLine(long ownerId) {
        return engine.holds().get(key, ownerField(ownerId)) == null
                && engine.holds().get(key, layout.ownerField(ownerId)) == null
                && !lostGrants().lost(ownerId);
    }

    @Override
    protected CompletableFuture<@Nullable Long> acquireOnce(Attempt attempt, AttemptGrant grant) {
        SingleKeyAcquisition call = attempt.call();
        if (call != null && attempt.waitMillis() != 0) {
            // Before the attempt is sent: from then on a call of this owner that gives up must leave
            // the claim this attempt may make or renew.
            engine.waitEntries().queues(claim(attempt.ownerId()), call);
        }
        long timeout = claimTimeoutMillis();
        String writer = ownerField(attempt.ownerId());
        // Readers that keep changing faster than they are read: park briefly and try again.
        return readHolds.run(
                null,
                (timeouts, tidy) -> new WriteAcquire(
                        key,
                        layout.writers(),
                        layout.declaresCompanions() ? layout.grantRecord(writer) : "",
                        timeouts,
                        attempt.leaseMillis(),
                        writer,
                        attempt.waitMillis(),
                        timeout,
                        Math.max(1, timeout / 3),
                        grant.idText(),
                        grant.modeText()),
                () -> CompletableFuture.completedFuture(1L));
    }

    @Override
    protected CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId, String requestId) {
        return readHolds.run(
                null, writeRelease(leaseMillis, ownerId, requestId, ""), () -> RedisReadLock.undecided(name));
    }

    @Override
    protected CompletableFuture<@Nullable Long> releaseLostGrant(long leaseMillis, long ownerId, String lostAttempts) {
        return readHolds.runBySource(
                null,
                writeRelease(leaseMillis, ownerId, engine.newRequestId(), lostAttempts),
                () -> RedisReadLock.undecided(name));
    }

    private BiFunction<List<String>, Boolean, ScriptCall<@Nullable Long>> writeRelease(
            long leaseMillis, long ownerId, String requestId, String lostAttempts) {
        String writer = ownerField(ownerId);
        boolean declared = layout.declaresCompanions();
        String latch = declared ? layout.unlockLatch(writer, requestId) : "";
        String record = declared ? layout.grantRecord(writer) : "";
        return (timeouts, tidy) -> new WriteRelease(
                key,
                latch,
                record,
                timeouts,
                leaseMillis,
                writer,
                requestId,
                engine.unlockLatchMillis(),
                publishFlags(),
                lostAttempts);
    }

    @Override
    protected void entersLocalLine(SingleKeyAcquisition call) {
        engine.waitEntries().waits(claim(call.ownerId()), call);
    }

    @Override
    protected CompletableFuture<Void> abandonWait(SingleKeyAcquisition call) {
        if (!engine.waitEntries().leaves(claim(call.ownerId()), call)) {
            // Another call of the owner still waits with the claim, and withdrawn it would let new
            // readers in ahead of that call; or no call of the owner made one.
            return CompletableFuture.completedFuture(null);
        }
        // Left behind, the claim would keep new readers out until it lapses.
        return withdrawWaiter(
                () -> new WriteAbandon(
                                key,
                                layout.writers(),
                                layout.readWriteChannel(),
                                UnlockSubscriptions.WAKE_ALL,
                                ownerField(call.ownerId()),
                                engine.connector().publishCommand())
                        .runBySource(engine.scripts()),
                "withdraw the write claim on",
                "read-write lock",
                "the claim lapses within one claim timeout");
    }

    @Override
    protected void acquisitionEnded(SingleKeyAcquisition call, boolean acquired, long leaseMillis) {
        engine.waitEntries().ended(claim(call.ownerId()), call);
    }

    @Override
    protected LuaScript renewScript() {
        return Scripts.RW_WRITE_RENEW;
    }

    @Override
    protected String wakeChannel(long ownerId) {
        return layout.readWriteChannel();
    }

    @Override
    protected CompletableFuture<Boolean> forceRelease() {
        return new ReadWriteForceRelease(
                        key,
                        layout.readWriteChannel(),
                        UnlockSubscriptions.WAKE_ALL,
                        RedissonLayout.WRITE_MODE,
                        engine.connector().publishCommand())
                .run(engine.scripts())
                .thenApply(deleted -> deleted != null && deleted == 1);
    }

    /** @return whether the lock is write-locked */
    @Override
    public boolean isLocked() {
        return inspection().writeLocked();
    }

    @Override
    public boolean renewLease(long leaseTime, java.util.concurrent.TimeUnit unit, long ownerId) {
        // Each read hold has a lease of its own in the read-write layout: one PEXPIRE cannot set them.
        throw new UnsupportedOperationException("Lock '" + name + "' is a write lock: renewLease is not supported");
    }
}
