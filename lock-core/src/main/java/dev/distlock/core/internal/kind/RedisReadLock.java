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

    /**
     * Creates the read side.
     * @param engine the client's engine
     * @param name lock name
     */
    public RedisReadLock(LockEngine engine, String name) {
        super(engine, name);
    }

    @Override
    protected LockKind kind() {
        return LockKind.READ;
    }

    @Override
    protected CompletableFuture<@Nullable Long> tryOnce(Attempt attempt) {
        return new ReadAcquire(key, attempt.leaseMillis(), ownerField(attempt.ownerId())).run(engine.scripts());
    }

    @Override
    protected CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId, String requestId) {
        return new ReadRelease(key, ownerField(ownerId), requestId, engine.unlockLatchMillis(), publishFlags())
                .run(engine.scripts());
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
}
