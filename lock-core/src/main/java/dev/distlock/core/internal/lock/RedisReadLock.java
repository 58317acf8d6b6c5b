package dev.distlock.core.internal.lock;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.internal.pubsub.UnlockSubscriptions;
import dev.distlock.core.internal.script.LuaScript;
import dev.distlock.core.internal.script.Scripts;

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

    private final String channel;
    private final String writers;

    /**
     * Creates the read side.
     * @param engine the client's engine
     * @param name lock name
     */
    public RedisReadLock(LockEngine engine, String name) {
        super(engine, name);
        this.channel = engine.names().suffixed("redisson_rwlock", key);
        this.writers = engine.names().suffixed(RedisWriteLock.WRITERS_PREFIX, key);
    }

    @Override
    protected String kind() {
        return "read";
    }

    @Override
    protected CompletableFuture<@Nullable Long> tryOnce(Attempt attempt) {
        return engine.scripts().run(Scripts.RW_READ_ACQUIRE, new String[] {key, writers},
                Long.toString(attempt.leaseMillis()), ownerField(attempt.ownerId()),
                RedisWriteLock.writerField(engine, attempt.ownerId()));
    }

    @Override
    protected CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId, String requestId) {
        String latch = engine.names().suffixed("redisson_unlock_latch", key) + ":" + requestId;
        return engine.scripts().run(Scripts.RW_READ_RELEASE, new String[] {key, channel, latch},
                UnlockSubscriptions.WAKE_ALL, ownerField(ownerId), Long.toString(engine.unlockLatchMillis()),
                engine.connector().publishCommand());
    }

    @Override
    protected LuaScript renewScript() {
        return Scripts.RW_READ_RENEW;
    }

    @Override
    protected String wakeChannel(long ownerId) {
        return channel;
    }

    @Override
    protected CompletableFuture<Boolean> forceRelease() {
        return engine.scripts().<Long>run(Scripts.RW_FORCE_RELEASE, new String[] {key, channel},
                UnlockSubscriptions.WAKE_ALL, "read", engine.connector().publishCommand()).thenApply(deleted -> deleted != null && deleted == 1);
    }

    /** @return whether the lock is read-locked, including a writer's own read holds (Redisson's definition) */
    @Override
    public boolean isLocked() {
        long deadline = engine.deadline();
        String mode = engine.await(engine.call(() -> engine.connector().commands().hget(key, "mode").toCompletableFuture()),
                name, "inspect", deadline);
        if ("read".equals(mode)) {
            return true;
        }
        if (!"write".equals(mode)) {
            return false;
        }
        long fields = engine.await(engine.call(() -> engine.connector().commands().hlen(key).toCompletableFuture()), name,
                "inspect", deadline);
        return fields > 2;
    }
}
