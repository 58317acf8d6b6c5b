package dev.distlock.spring.internal.aspect;

import dev.distlock.core.RedisLock;
import dev.distlock.spring.LockLeaseExpiredException;
import dev.distlock.spring.internal.hold.CurrentLockContext;
import dev.distlock.spring.internal.hold.Hold;
import dev.distlock.spring.internal.hold.LockExecutor;
import dev.distlock.spring.internal.hold.LockRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;

/**
 * Runs a {@code CompletionStage} method under its lock without blocking the caller: the
 * returned future completes once the method's stage has completed and the lock is released.
 * The grant arrives on a Redis I/O thread, where a method body that blocks (JDBC, say) would
 * stall every lock of the client, so the body runs on the method executor (Boot's
 * {@code applicationTaskExecutor} when there is one). The I/O thread does not submit it either:
 * a {@link StageHandOff} thread does, so an executor that runs a task on the submitting thread or
 * blocks that thread until it has room runs or blocks the hand-off thread, never the I/O thread.
 *
 * <p>Cancelling the returned future while the lock is awaited abandons the wait. Once the body has
 * been handed to the executor, a cancel only detaches the caller: the method's own future is not
 * cancelled, since cancelling a {@code CompletableFuture} completes it at once while its work goes on,
 * and the lock is released when that future completes by itself. An executor that refuses the body
 * releases the lock and fails the caller's future.
 */
final class StageLockInvocation {

    private final LockExecutor executor;
    private final Executor methodExecutor;

    /**
     * Creates the invocation.
     * @param executor acquires and releases
     * @param methodExecutor runs the method's body once the lock is granted
     */
    StageLockInvocation(LockExecutor executor, Executor methodExecutor) {
        this.executor = executor;
        this.methodExecutor = methodExecutor;
    }

    /**
     * Calls the method under its lock.
     * @param invocation the proxied call
     * @param lockMethod the parsed method
     * @param request what to lock
     * @param target the bean
     * @param args the arguments
     * @return the caller's future
     */
    Object invoke(
            MethodInvocation invocation, LockMethod lockMethod, LockRequest request, Object target, Object[] args) {
        MethodInvocation call = invocation instanceof ProxyMethodInvocation proxy ? proxy.invocableClone() : invocation;
        CompletableFuture<@Nullable Hold> acquiring;
        try {
            acquiring = executor.tryAcquireAsync(request, RedisLock.newOwnerId());
        } catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        CompletableFuture<@Nullable Object> out = new CompletableFuture<>();
        out.whenComplete((value, error) -> {
            if (out.isCancelled()) {
                acquiring.cancel(false);
            }
        });
        // The grant completes on a Redis I/O thread (or the client's timer thread), which must never
        // call the method executor itself: an executor may run the task on the submitting thread
        // (CallerRunsPolicy) or block it until there is room (a throttled executor), and either would
        // stall every command of the client. A hand-off thread submits instead, and is the thread such
        // an executor makes wait or run the body.
        // Not whenCompleteAsync: an executor's refusal would only fail a derived stage, leaving the
        // hold renewed for ever and the caller's future pending.
        acquiring.whenComplete((hold, error) -> {
            try {
                StageHandOff.execute(loader, () -> handOff(call, lockMethod, request, target, args, hold, error, out));
            } catch (RejectedExecutionException ex) {
                refused(request, hold, error, out, ex);
            }
        });
        return out;
    }

    private void handOff(
            MethodInvocation call,
            LockMethod lockMethod,
            LockRequest request,
            Object target,
            Object[] args,
            @Nullable Hold hold,
            @Nullable Throwable error,
            CompletableFuture<@Nullable Object> out) {
        try {
            methodExecutor.execute(() -> granted(call, lockMethod, request, target, args, hold, error, out));
        } catch (RejectedExecutionException ex) {
            refused(request, hold, error, out, ex);
        } catch (RuntimeException ex) {
            // Any other failure of execute() must not leave the hold renewed for ever either.
            refused(request, hold, error, out, new RejectedExecutionException(ex.getMessage(), ex));
        }
    }

    private void granted(
            MethodInvocation call,
            LockMethod lockMethod,
            LockRequest request,
            Object target,
            Object[] args,
            @Nullable Hold hold,
            @Nullable Throwable error,
            CompletableFuture<@Nullable Object> out) {
        if (error != null) {
            out.completeExceptionally(error);
        } else if (hold == null) {
            pipe(() -> LockFailures.onFailure(lockMethod, request, target, args, true), out);
        } else if (out.isDone()) {
            // Cancelled as the lock was granted: the body never starts.
            executor.releaseAsync(hold);
        } else {
            runHeld(call, hold, executor, out);
        }
    }

    private void refused(
            LockRequest request,
            @Nullable Hold hold,
            @Nullable Throwable error,
            CompletableFuture<@Nullable Object> out,
            RejectedExecutionException refusal) {
        if (hold == null) {
            out.completeExceptionally(error != null ? error : refusal);
            return;
        }
        RejectedExecutionException failure = new RejectedExecutionException(
                "Lock '" + hold.name() + "' was granted to " + request.description()
                        + " but the method executor refused to run it; the lock was released",
                refusal);
        executor.releaseAsync(hold).whenComplete((ignored, none) -> out.completeExceptionally(failure));
    }

    @SuppressWarnings("unchecked")
    private static void runHeld(
            MethodInvocation call, Hold hold, LockExecutor executor, CompletableFuture<@Nullable Object> out) {
        CurrentLockContext.Frame previous =
                CurrentLockContext.enter(hold.name(), hold.type(), hold.fencingToken(), hold::isHeld);
        CompletableFuture<Object> original;
        try {
            Object result = call.proceed();
            // CompletionStage allows toCompletableFuture() to be unsupported; never keep the lock for it.
            original = result != null
                    ? ((CompletionStage<Object>) result).toCompletableFuture()
                    : CompletableFuture.completedFuture(null);
        } catch (Throwable ex) {
            executor.releaseAsync(hold).whenComplete((ignored, none) -> out.completeExceptionally(ex));
            return;
        } finally {
            CurrentLockContext.restore(previous);
        }
        // The lock follows the method's future, not the caller's: a cancelled caller's future says
        // nothing about whether the work still runs.
        hold.onLeaseLost(() -> original.cancel(true));
        original.whenComplete((value, error) -> executor.releaseAsync(hold).whenComplete((ignored, none) -> {
            if (out.isDone()) {
                return;
            }
            try {
                executor.checkLeaseLost(hold);
            } catch (LockLeaseExpiredException ex) {
                out.completeExceptionally(ex);
                return;
            }
            if (error != null) {
                out.completeExceptionally(error);
            } else {
                out.complete(value);
            }
        }));
    }

    @SuppressWarnings("unchecked")
    private static void pipe(StageSupplier supplier, CompletableFuture<@Nullable Object> out) {
        try {
            Object result = supplier.get();
            if (result == null) {
                out.complete(null);
                return;
            }
            ((CompletionStage<Object>) result).whenComplete((value, error) -> {
                if (error != null) {
                    out.completeExceptionally(error);
                } else {
                    out.complete(value);
                }
            });
        } catch (Throwable ex) {
            out.completeExceptionally(ex);
        }
    }

    private interface StageSupplier {
        @Nullable
        Object get() throws Throwable;
    }
}
