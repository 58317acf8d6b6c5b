package dev.distlock.core.internal.lock;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockListener;
import dev.distlock.core.internal.pubsub.ChannelWaiters;
import dev.distlock.core.internal.script.Scripts;

/**
 * A reentrant lock whose acquire script also increments {@code redisson_lock_token:{name}};
 * release, renewal and wake-up are the reentrant lock's.
 */
public final class FencedRedisLock extends ReentrantRedisLock implements FencedLock {

    private final String tokenKey;
    /** Token of each owner's latest acquisition through this instance, until it is handed out. */
    private final Map<Long, Long> issued = new ConcurrentHashMap<>();

    /**
     * Creates the lock.
     * @param engine the client's engine
     * @param name lock name
     */
    public FencedRedisLock(LockEngine engine, String name) {
        super(engine, name);
        this.tokenKey = engine.names().suffixed("redisson_lock_token", key);
    }

    @Override
    public FencedLock withListener(LockListener listener) {
        return (FencedLock) super.withListener(listener);
    }

    @Override
    protected String kind() {
        return "fenced";
    }

    @Override
    protected boolean targetedWakeups() {
        // Fenced waiters keep to the shared channel: the fenced acquire script does not list them.
        return false;
    }

    @Override
    protected CompletableFuture<@Nullable Long> acquire(long leaseMillis, long ownerId, long waitMillis,
            @Nullable ChannelWaiters waiting) {
        return acquire(leaseMillis, ownerId);
    }

    @Override
    protected CompletableFuture<@Nullable Long> acquire(long leaseMillis, long ownerId) {
        return engine.scripts().<List<Long>>run(Scripts.FENCED_ACQUIRE, new String[] {key, tokenKey},
                Long.toString(leaseMillis), ownerField(ownerId)).thenApply(reply -> {
                    if (reply.get(0) == 1) {
                        issued.put(ownerId, reply.get(1));
                        return null;
                    }
                    return reply.get(1);
                });
    }

    @Override
    public long lockAndGetToken() {
        return lockAndGetToken(WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    @Override
    public long lockAndGetToken(long leaseTime, TimeUnit unit) {
        lock(leaseTime, unit);
        return issued.remove(currentOwner());
    }

    @Override
    public OptionalLong tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return tryLockAndGetToken(waitTime, leaseTime, unit, currentOwner());
    }

    @Override
    public OptionalLong tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit, long ownerId)
            throws InterruptedException {
        if (!tryLock(waitTime, leaseTime, unit, ownerId)) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(issued.remove(ownerId));
    }

    @Override
    public long getToken() {
        String token = engine.await(engine.call(() -> engine.connector().commands().get(tokenKey).toCompletableFuture()),
                name, "read the token of");
        return token == null ? 0 : Long.parseLong(token);
    }
}
