package dev.distlock.core.internal.kind;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockKind;
import dev.distlock.core.LockListener;
import dev.distlock.core.internal.AcquiredStages;
import dev.distlock.core.internal.acquire.Attempt;
import dev.distlock.core.internal.acquire.AttemptGrant;
import dev.distlock.core.internal.acquire.SingleKeyAcquisition;
import dev.distlock.core.internal.engine.Arguments;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.script.FencedAcquire;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A reentrant lock whose acquire script also increments {@code redisson_lock_token:{name}};
 * release (including the give-back of a grant whose reply was lost), renewal and wake-up are the
 * reentrant lock's.
 */
public final class FencedRedisLock extends ReentrantRedisLock implements FencedLock {

    /**
     * Creates the lock.
     * @param engine the client's engine
     * @param name lock name
     */
    public FencedRedisLock(LockEngine engine, String name) {
        super(engine, name);
    }

    @Override
    public FencedLock withListener(LockListener listener) {
        return (FencedLock) super.withListener(listener);
    }

    @Override
    protected LockKind kind() {
        return LockKind.FENCED;
    }

    @Override
    protected boolean targetedWakeups() {
        // Fenced waiters keep to the shared channel: the fenced acquire script does not list them.
        return false;
    }

    @Override
    protected CompletableFuture<@Nullable Long> acquireOnce(Attempt attempt, AttemptGrant grant) {
        String field = ownerField(attempt.ownerId());
        String grantId = grant.attemptId();
        // A grant whose reply is lost is given back by the reentrant release, as for every kind.
        return new FencedAcquire(
                        key,
                        layout.token(),
                        grantId != null && layout.declaresCompanions() ? layout.grantRecord(field) : null,
                        attempt.leaseMillis(),
                        field,
                        grant.idText(),
                        grant.modeText())
                .run(engine.scripts())
                .thenApply(reply -> {
                    if (reply.get(0) != 1) {
                        return reply.get(1);
                    }
                    SingleKeyAcquisition call = attempt.call();
                    if (call != null) {
                        call.token(reply.get(1));
                    }
                    return null;
                });
    }

    @Override
    public long lockAndGetToken() {
        return lockAndGetToken(WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    @Override
    public long lockAndGetToken(long leaseTime, TimeUnit unit) {
        SingleKeyAcquisition call =
                acquireAsync(Arguments.FOREVER, Arguments.leaseMillis(leaseTime, unit), currentOwner());
        try {
            awaitAcquisition(call, false);
        } catch (InterruptedException ex) {
            throw new IllegalStateException("uninterruptible acquisition was interrupted", ex);
        }
        return tokenOf(call);
    }

    @Override
    public OptionalLong tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return tryLockAndGetToken(waitTime, leaseTime, unit, currentOwner());
    }

    @Override
    public OptionalLong tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit, long ownerId)
            throws InterruptedException {
        long wait = Arguments.waitMillis(waitTime, unit);
        SingleKeyAcquisition call = acquireAsync(wait, Arguments.leaseMillis(leaseTime, unit), ownerId);
        // A wait of 0 never blocks, so like tryLock() it ignores the interrupt flag.
        return awaitAcquisition(call, wait != 0) ? OptionalLong.of(tokenOf(call)) : OptionalLong.empty();
    }

    @Override
    public CompletionStage<@Nullable Long> tryLockAndGetTokenAsync(
            long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
        long wait = Arguments.waitMillis(waitTime, unit);
        SingleKeyAcquisition call = acquireAsync(wait, Arguments.leaseMillis(leaseTime, unit), ownerId);
        return AcquiredStages.derive(
                call.start(), acquired -> acquired ? tokenOf(call) : null, () -> unlockAsync(ownerId)
                        .toCompletableFuture());
    }

    private long tokenOf(SingleKeyAcquisition call) {
        Long token = call.token();
        if (token == null) {
            throw new IllegalStateException("Fenced lock '" + name + "' was acquired without a token");
        }
        return token;
    }

    @Override
    public long getToken() {
        long deadline = engine.replies().deadlineOnceConnected(name, "read the token of");
        String token = engine.replies()
                .await(
                        engine.calls().call(() -> engine.connector()
                                .commands()
                                .get(layout.token())
                                .toCompletableFuture()),
                        name,
                        "read the token of",
                        deadline);
        return token == null ? 0 : Long.parseLong(token);
    }
}
