package dev.distlock.core.internal.lock;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockListener;
import dev.distlock.core.internal.pubsub.ChannelWaiters;
import dev.distlock.core.internal.script.Scripts;

/**
 * A reentrant lock whose acquire script also increments {@code redisson_lock_token:{name}};
 * release, renewal and wake-up are the reentrant lock's.
 */
public final class FencedRedisLock extends ReentrantRedisLock implements FencedLock {

    private static final Logger log = LoggerFactory.getLogger(FencedRedisLock.class);

    private final String tokenKey;
    /**
     * Token of each owner's acquisition in progress through this instance: put when its caller
     * receives the grant, taken when the acquire call ends, so it never outlives the call.
     */
    private final Map<Long, Long> issued = new ConcurrentHashMap<>();
    /** Where the calling thread's token methods want the token of the acquire call they make. */
    private final ThreadLocal<long @Nullable []> tokenSink = new ThreadLocal<>();

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
        CompletableFuture<@Nullable Long> toCaller = new CompletableFuture<>();
        engine.scripts().<List<Long>>run(Scripts.FENCED_ACQUIRE, new String[] {key, tokenKey},
                Long.toString(leaseMillis), ownerField(ownerId)).whenComplete((reply, failure) -> {
                    if (failure != null) {
                        toCaller.completeExceptionally(failure);
                        return;
                    }
                    if (reply.get(0) != 1) {
                        toCaller.complete(reply.get(1));
                        return;
                    }
                    Long token = reply.get(1);
                    issued.put(ownerId, token);
                    if (!toCaller.complete(null)) {
                        // Granted after the caller stopped waiting: nobody will unlock this hold, so give it
                        // back. The fenced script counts it as a re-entry if the owner has taken the lock
                        // since, so one release undoes exactly this grant.
                        issued.remove(ownerId, token);
                        engine.call(() -> release(leaseMillis, ownerId)).whenComplete((released, error) -> {
                            if (error != null) {
                                log.debug("Could not give back a late grant of fenced lock '{}'; it expires with its lease",
                                        name, error);
                            }
                        });
                    }
                });
        return toCaller;
    }

    @Override
    protected boolean acquire(long waitMillis, long leaseMillis, long ownerId, boolean interruptible)
            throws InterruptedException {
        try {
            return super.acquire(waitMillis, leaseMillis, ownerId, interruptible);
        }
        finally {
            Long token = issued.remove(ownerId);
            long[] sink = tokenSink.get();
            if (sink != null && token != null) {
                sink[0] = token;
            }
        }
    }

    @Override
    public long lockAndGetToken() {
        return lockAndGetToken(WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    @Override
    public long lockAndGetToken(long leaseTime, TimeUnit unit) {
        long[] sink = new long[1];
        tokenSink.set(sink);
        try {
            lock(leaseTime, unit);
            return sink[0];
        }
        finally {
            tokenSink.remove();
        }
    }

    @Override
    public OptionalLong tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return tryLockAndGetToken(waitTime, leaseTime, unit, currentOwner());
    }

    @Override
    public OptionalLong tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit, long ownerId)
            throws InterruptedException {
        long[] sink = new long[1];
        tokenSink.set(sink);
        try {
            if (!tryLock(waitTime, leaseTime, unit, ownerId)) {
                return OptionalLong.empty();
            }
            return OptionalLong.of(sink[0]);
        }
        finally {
            tokenSink.remove();
        }
    }

    /** @return tokens drawn but not yet handed out (diagnostics; stays bounded by in-flight acquisitions) */
    int pendingTokens() {
        return issued.size();
    }

    @Override
    public long getToken() {
        String token = engine.await(engine.call(() -> engine.connector().commands().get(tokenKey).toCompletableFuture()),
                name, "read the token of");
        return token == null ? 0 : Long.parseLong(token);
    }

    @Override
    public java.util.concurrent.CompletionStage<@Nullable Long> tryLockAndGetTokenAsync(long waitTime, long leaseTime,
            TimeUnit unit, long ownerId) {
        long wait = Arguments.waitMillis(waitTime, unit);
        long lease = Arguments.leaseMillis(leaseTime, unit);
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                OptionalLong token = tryLockAndGetToken(wait, lease, TimeUnit.MILLISECONDS, ownerId);
                return token.isPresent() ? token.getAsLong() : null;
            }
            catch (InterruptedException ex) {
                throw new java.util.concurrent.CompletionException(ex);
            }
        });
    }

}
