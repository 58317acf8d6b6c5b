package dev.distlock.core.internal.lock;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.internal.pubsub.UnlockSubscriptions;
import dev.distlock.core.internal.script.LuaScript;
import dev.distlock.core.internal.script.Scripts;

/**
 * Redisson's {@code RLock}: hash at the lock key, owner field to hold count, lease as the key's
 * TTL, unlock message {@code 0} on {@code redisson_lock__channel:{name}}.
 */
public class ReentrantRedisLock extends AbstractRedisLock {

    /** Channel on which releases are announced. */
    protected final String channel;

    /**
     * Creates the lock.
     * @param engine the client's engine
     * @param name lock name
     */
    public ReentrantRedisLock(LockEngine engine, String name) {
        super(engine, name);
        this.channel = RedisNames.suffixed("redisson_lock__channel", key);
    }

    @Override
    protected String kind() {
        return "reentrant";
    }

    @Override
    protected CompletableFuture<@Nullable Long> acquire(long leaseMillis, long ownerId) {
        return engine.scripts().run(Scripts.REENTRANT_ACQUIRE, new String[] {key}, Long.toString(leaseMillis),
                ownerField(ownerId));
    }

    @Override
    protected CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId) {
        return release(leaseMillis, ownerId, java.util.UUID.randomUUID().toString());
    }

    @Override
    protected CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId, String requestId) {
        String latch = RedisNames.suffixed("redisson_unlock_latch", key) + ":" + requestId;
        return engine.scripts().run(Scripts.REENTRANT_RELEASE, new String[] {key, channel, latch},
                UnlockSubscriptions.WAKE_ONE, Long.toString(leaseMillis), ownerField(ownerId),
                Long.toString(engine.unlockLatchMillis()));
    }

    @Override
    protected boolean idempotentRelease() {
        return true;
    }

    @Override
    protected LuaScript renewScript() {
        return Scripts.RENEW;
    }

    @Override
    protected String wakeChannel(long ownerId) {
        return channel;
    }

    @Override
    protected CompletableFuture<Boolean> forceRelease() {
        return engine.scripts().<Long>run(Scripts.FORCE_RELEASE, new String[] {key, channel},
                UnlockSubscriptions.WAKE_ONE).thenApply(deleted -> deleted != null && deleted == 1);
    }
}
