package dev.distlock.core.internal.kind;

import dev.distlock.core.LockKind;
import dev.distlock.core.internal.acquire.Attempt;
import dev.distlock.core.internal.acquire.AttemptGrant;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.layout.RedissonLayout;
import dev.distlock.core.internal.pubsub.UnlockSubscriptions;
import dev.distlock.core.internal.script.LuaScript;
import dev.distlock.core.internal.script.ReadAcquire;
import dev.distlock.core.internal.script.ReadRelease;
import dev.distlock.core.internal.script.ReadWriteForceRelease;
import dev.distlock.core.internal.script.ScriptCall;
import dev.distlock.core.internal.script.Scripts;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * The read side of Redisson's {@code RReadWriteLock}: owner field {@code <clientId>:<threadId>} in
 * the lock hash (mode {@code read}), each hold with its own lease on
 * {@code {name}:<owner>:rwlock_timeout:<n>}. The lock's TTL is that of the longest live read hold, so
 * an expired read hold never keeps the lock alive.
 *
 * <p>While a writer waits, readers that do not hold the lock yet stay out (writer preference);
 * readers that already hold it may re-enter.
 */
public class RedisReadLock extends AbstractRedisLock {

    private final DeclaredReadHolds readHolds;

    /**
     * Creates the read side.
     * @param engine the client's engine
     * @param name lock name
     */
    public RedisReadLock(LockEngine engine, String name) {
        super(engine, name);
        this.readHolds = new DeclaredReadHolds(engine, key);
    }

    @Override
    protected LockKind kind() {
        return LockKind.READ;
    }

    @Override
    protected CompletableFuture<@Nullable Long> acquireOnce(Attempt attempt, AttemptGrant grant) {
        String reader = ownerField(attempt.ownerId());
        // Readers that keep changing faster than they are read: park briefly and try again.
        return readHolds.run(
                reader,
                (timeouts, tidy) -> new ReadAcquire(
                        key,
                        layout.writers(),
                        layout.declaresCompanions() ? layout.grantRecord(reader) : "",
                        timeouts,
                        attempt.leaseMillis(),
                        reader,
                        grant.idText(),
                        grant.modeText()),
                () -> CompletableFuture.completedFuture(1L));
    }

    @Override
    protected CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId, String requestId) {
        // An unlock's lease is negative (Release): it does not say which hold it ends.
        return readHolds.run(
                ownerField(ownerId), readRelease(ownerId, requestId, leaseMillis < 0, ""), () -> undecided(name));
    }

    /**
     * Gives back the reader's newest read hold, when one of the lost attempts took it. The lease is
     * not used: each read hold keeps its own, and the lock's TTL follows the longest one left.
     */
    @Override
    protected CompletableFuture<@Nullable Long> releaseLostGrant(long leaseMillis, long ownerId, String lostAttempts) {
        return readHolds.runBySource(
                ownerField(ownerId),
                readRelease(ownerId, engine.newRequestId(), false, lostAttempts),
                () -> undecided(name));
    }

    private BiFunction<List<String>, Boolean, ScriptCall<@Nullable Long>> readRelease(
            long ownerId, String requestId, boolean unlock, String lostAttempts) {
        String reader = ownerField(ownerId);
        boolean declared = layout.declaresCompanions();
        String latch = declared ? layout.unlockLatch(reader, requestId) : "";
        String record = declared ? layout.grantRecord(reader) : "";
        return (timeouts, tidy) -> new ReadRelease(
                key,
                latch,
                record,
                timeouts,
                reader,
                requestId,
                engine.unlockLatchMillis(),
                publishFlags(),
                tidy,
                unlock,
                lostAttempts);
    }

    @Override
    protected LuaScript renewScript() {
        return Scripts.RW_READ_RENEW;
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
                        RedissonLayout.READ_MODE,
                        engine.connector().publishCommand())
                .run(engine.scripts())
                .thenApply(deleted -> deleted != null && deleted == 1);
    }

    /** @return whether the lock is read-locked, including a writer's own read holds (Redisson's definition) */
    @Override
    public boolean isLocked() {
        return inspection().readLocked();
    }

    @Override
    public boolean renewLease(long leaseTime, java.util.concurrent.TimeUnit unit, long ownerId) {
        // Each read hold has a lease of its own in the read-write layout: one PEXPIRE cannot set them.
        throw new UnsupportedOperationException("Lock '" + name + "' is a read lock: renewLease is not supported");
    }

    /** @return the failure of a release whose lock's readers changed at every look */
    static CompletableFuture<@Nullable Long> undecided(String name) {
        return CompletableFuture.failedFuture(new IllegalStateException("the readers of read-write lock '" + name
                + "' changed at each of " + DeclaredReadHolds.ROUNDS + " looks; try again"));
    }
}
