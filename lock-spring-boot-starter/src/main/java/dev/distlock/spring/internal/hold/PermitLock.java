package dev.distlock.spring.internal.hold;

import dev.distlock.core.LockListener;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisSemaphore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One permit of a {@link RedisSemaphore}, seen as a lock so that the hold runtime (waits and their
 * shutdown, observers and meters, the hold index, minimum holds, release at transaction end) takes
 * and gives back permits on the path it runs locks on, rather than on a second one. One instance per
 * acquisition: it keeps the id of the permit it took, which its release gives back.
 *
 * <p>Only what the runtime calls is supported: the owner-id forms of {@code tryLock}, {@code unlock}
 * and their asynchronous forms. A release that finds the permit gone (its lease ended) throws
 * {@link IllegalMonitorStateException}, as a lock's release does, so the executor reports a lost lease.
 */
final class PermitLock implements RedisLock {

    private final RedisSemaphore semaphore;
    private final SemaphorePermits permits;
    private final int count;
    private volatile @Nullable String permitId;

    PermitLock(RedisSemaphore semaphore, SemaphorePermits permits, int count) {
        this.semaphore = semaphore;
        this.permits = permits;
        this.count = count;
    }

    /** @return the id of the permit taken, or {@code null} before it is taken */
    @Nullable
    String permitId() {
        return permitId;
    }

    @Override
    public String getName() {
        return semaphore.getName();
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit, long ownerId) throws InterruptedException {
        try {
            permits.ensure(semaphore, count).get();
        } catch (ExecutionException ex) {
            throw unwrapped(ex.getCause());
        }
        String id = waitTime == WAIT_FOREVER
                ? semaphore.acquire(leaseTime, unit)
                : semaphore.tryAcquire(waitTime, leaseTime, unit);
        permitId = id;
        return id != null;
    }

    @Override
    public CompletionStage<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        permits.ensure(semaphore, count).whenComplete((ignored, setError) -> {
            if (setError != null) {
                result.completeExceptionally(unwrapped(setError));
                return;
            }
            if (result.isDone()) {
                return;
            }
            CompletableFuture<@Nullable String> taking = (waitTime == WAIT_FOREVER
                            ? semaphore.acquireAsync(leaseTime, unit)
                            : semaphore.tryAcquireAsync(waitTime, leaseTime, unit))
                    .toCompletableFuture();
            // The acquisition gives back a permit granted after its cancel.
            result.whenComplete((value, error) -> {
                if (result.isCancelled()) {
                    taking.cancel(false);
                }
            });
            taking.whenComplete((id, error) -> {
                if (error != null) {
                    result.completeExceptionally(unwrapped(error));
                    return;
                }
                permitId = id;
                if (!result.complete(id != null) && id != null) {
                    // Granted as the caller cancelled: nobody else will give it back.
                    semaphore.releaseAsync(id);
                }
            });
        });
        return result;
    }

    @Override
    public void unlock(long ownerId) {
        try {
            semaphore.release(takenId());
        } catch (IllegalArgumentException ex) {
            throw lost(ex);
        }
    }

    @Override
    public CompletionStage<Void> unlockAsync(long ownerId) {
        String id;
        try {
            id = takenId();
        } catch (IllegalMonitorStateException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        return semaphore.releaseAsync(id).exceptionallyCompose(error -> {
            Throwable cause = unwrapped(error);
            return CompletableFuture.failedFuture(
                    cause instanceof IllegalArgumentException unknown ? lost(unknown) : cause);
        });
    }

    private String takenId() {
        String id = permitId;
        if (id == null) {
            throw new IllegalMonitorStateException("No permit of semaphore '" + getName() + "' was taken");
        }
        return id;
    }

    private static IllegalMonitorStateException lost(IllegalArgumentException unknown) {
        IllegalMonitorStateException lost = new IllegalMonitorStateException(unknown.getMessage());
        lost.initCause(unknown);
        return lost;
    }

    private static RuntimeException unwrapped(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return cause instanceof RuntimeException runtime ? runtime : new CompletionException(cause);
    }

    @Override
    public boolean isHeldBy(long ownerId) {
        return permitId != null;
    }

    private UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException(
                "Semaphore '" + getName() + "': a permit is taken and given back through the hold runtime only");
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        throw unsupported();
    }

    @Override
    public void lockInterruptibly(long leaseTime, TimeUnit unit) {
        throw unsupported();
    }

    @Override
    public boolean tryLock() {
        throw unsupported();
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) {
        throw unsupported();
    }

    @Override
    public CompletionStage<Void> lockAsync(long leaseTime, TimeUnit unit, long ownerId) {
        throw unsupported();
    }

    @Override
    public boolean isLocked() {
        throw unsupported();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        throw unsupported();
    }

    @Override
    public int getHoldCount() {
        throw unsupported();
    }

    @Override
    public long remainTimeToLive() {
        throw unsupported();
    }

    @Override
    public RedisLock withListener(LockListener listener) {
        throw unsupported();
    }

    @Override
    public void lock() {
        throw unsupported();
    }

    @Override
    public void lockInterruptibly() {
        throw unsupported();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) {
        throw unsupported();
    }

    @Override
    public void unlock() {
        throw unsupported();
    }

    @Override
    public boolean forceUnlock() {
        throw unsupported();
    }
}
