package dev.distlock.core.internal.kind;

import dev.distlock.core.LockKind;
import dev.distlock.core.internal.acquire.Attempt;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.layout.RedissonLayout;
import dev.distlock.core.internal.pubsub.UnlockSubscriptions;
import dev.distlock.core.internal.script.LuaScript;
import dev.distlock.core.internal.script.ReadAcquire;
import dev.distlock.core.internal.script.ReadRelease;
import dev.distlock.core.internal.script.ReadWriteForceRelease;
import dev.distlock.core.internal.script.Scripts;
import java.util.concurrent.CompletableFuture;
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
    protected CompletableFuture<@Nullable Long> tryOnce(Attempt attempt) {
        String reader = ownerField(attempt.ownerId());
        // Readers that keep changing faster than they are read: park briefly and try again.
        return readHolds.run(
                reader,
                (timeouts, tidy) -> new ReadAcquire(key, layout.writers(), timeouts, attempt.leaseMillis(), reader),
                () -> CompletableFuture.completedFuture(1L));
    }

    @Override
    protected CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId, String requestId) {
        String reader = ownerField(ownerId);
        String latch = layout.declaresCompanions() ? layout.unlockLatch(reader, requestId) : "";
        return readHolds.run(
                reader,
                (timeouts, tidy) -> new ReadRelease(
                        key,
                        latch,
                        timeouts,
                        reader,
                        requestId,
                        engine.unlockLatchMillis(),
                        publishFlags(),
                        tidy,
                        // An unlock's lease is negative (Release): it does not say which hold it ends.
                        leaseMillis < 0),
                () -> undecided(name));
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
