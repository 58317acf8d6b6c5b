package dev.distlock.spring.internal;

import dev.distlock.core.RedisLock;
import dev.distlock.spring.LockAcquisitionException;
import dev.distlock.spring.LockLeaseExpiredException;
import dev.distlock.spring.OnFailure;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ClassUtils;

/**
 * Runs {@link dev.distlock.spring.DistributedLock} methods under their lock, dispatching on the
 * return type: plain, {@code CompletionStage}, or Reactor (through {@link ReactiveLockSupport}).
 */
final class DistributedLockInterceptor implements MethodInterceptor {

    private static final boolean TX_PRESENT = ClassUtils.isPresent(
            "org.springframework.transaction.support.TransactionSynchronizationManager",
            DistributedLockInterceptor.class.getClassLoader());

    private final LockMethodRegistry registry;
    private final LockKeyResolver keys;
    private final ObjectProvider<LockExecutor> executorProvider;
    private final ObjectProvider<ReactiveLockSupport> reactiveProvider;
    private final Supplier<Executor> methodExecutor;
    private volatile @Nullable LockExecutor executor;

    /**
     * Creates the interceptor.
     * @param registry parsed lock methods
     * @param keys evaluates keys
     * @param executorProvider resolved on first call, so proxying does not create the client early
     * @param reactiveProvider Reactor support, present only with Reactor on the classpath
     * @param methodExecutor runs the body of a {@code CompletionStage} method once its lock is granted
     */
    DistributedLockInterceptor(
            LockMethodRegistry registry,
            LockKeyResolver keys,
            ObjectProvider<LockExecutor> executorProvider,
            ObjectProvider<ReactiveLockSupport> reactiveProvider,
            Supplier<Executor> methodExecutor) {
        this.registry = registry;
        this.keys = keys;
        this.executorProvider = executorProvider;
        this.reactiveProvider = reactiveProvider;
        this.methodExecutor = methodExecutor;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopUtils.getTargetClass(target) : null;
        LockMethod lockMethod = registry.find(invocation.getMethod(), targetClass);
        if (lockMethod == null || target == null) {
            return invocation.proceed();
        }
        Object[] args = invocation.getArguments();
        if (!keys.shouldLock(lockMethod, target, args)) {
            return invocation.proceed();
        }
        List<String> names = keys.names(lockMethod, target, args);
        LockRequest request = new LockRequest(
                lockMethod.template(),
                names,
                lockMethod.type(),
                lockMethod.annotation().fenced(),
                lockMethod.waitTime(),
                lockMethod.leaseTime(),
                lockMethod.description() + "()",
                lockMethod.minHoldTime());
        return switch (lockMethod.kind()) {
            case SYNC -> invokeSync(invocation, lockMethod, request, target, args);
            case COMPLETION_STAGE -> invokeStage(invocation, lockMethod, request, target, args);
            case MONO, FLUX, SUSPEND, ADAPTED ->
                reactive(lockMethod).invoke(invocation, lockMethod, request, executor(), target, args);
        };
    }

    private ReactiveLockSupport reactive(LockMethod lockMethod) {
        ReactiveLockSupport support = reactiveProvider.getIfAvailable();
        if (support == null) {
            throw new IllegalStateException("@DistributedLock on " + lockMethod.description()
                    + " returns a Reactor type but Reactor support is not configured");
        }
        return support;
    }

    private LockExecutor executor() {
        LockExecutor resolved = executor;
        if (resolved == null) {
            resolved = executorProvider.getObject();
            executor = resolved;
        }
        return resolved;
    }

    private @Nullable Object invokeSync(
            MethodInvocation invocation, LockMethod lockMethod, LockRequest request, Object target, Object[] args)
            throws Throwable {
        LockExecutor executor = executor();
        Thread thread = Thread.currentThread();
        Hold hold;
        try {
            hold = executor.tryAcquire(request, thread.getId(), thread);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockAcquisitionException(request.displayName(), request.waitTime(), ex);
        }
        if (hold == null) {
            return onFailure(lockMethod, request, target, args, false);
        }
        CurrentLockContext.Frame previous =
                CurrentLockContext.enter(hold.name(), hold.type(), hold.fencingToken(), hold::isHeld);
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable ex) {
            CurrentLockContext.restore(previous);
            if (!(TX_PRESENT && TransactionReleaseSupport.releaseAfterTransaction(executor, hold))) {
                executor.release(hold);
            }
            throw ex;
        }
        CurrentLockContext.restore(previous);
        if (TX_PRESENT && TransactionReleaseSupport.releaseAfterTransaction(executor, hold)) {
            return result;
        }
        executor.release(hold);
        executor.checkLeaseLost(hold);
        return result;
    }

    /**
     * Runs a {@code CompletionStage} method under its lock without blocking the caller: the
     * returned future completes once the method's stage has completed and the lock is released.
     * The grant arrives on a Redis I/O thread, where a method body that blocks (JDBC, say) would
     * stall every lock of the client, so the body runs on the method executor (Boot's
     * {@code applicationTaskExecutor} when there is one). Cancelling the returned future cancels
     * the wait, or the method's stage once it runs.
     */
    private Object invokeStage(
            MethodInvocation invocation, LockMethod lockMethod, LockRequest request, Object target, Object[] args) {
        LockExecutor executor = executor();
        MethodInvocation call = invocation instanceof ProxyMethodInvocation proxy ? proxy.invocableClone() : invocation;
        CompletableFuture<@Nullable Hold> acquiring;
        try {
            acquiring = executor.tryAcquireAsync(request, RedisLock.newOwnerId());
        } catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        CompletableFuture<@Nullable Object> out = new CompletableFuture<>();
        AtomicReference<@Nullable CompletableFuture<?>> running = new AtomicReference<>();
        out.whenComplete((value, error) -> {
            if (out.isCancelled()) {
                acquiring.cancel(false);
                CompletableFuture<?> work = running.get();
                if (work != null) {
                    work.cancel(true);
                }
            }
        });
        acquiring.whenCompleteAsync(
                (hold, error) -> {
                    if (error != null) {
                        out.completeExceptionally(error);
                    } else if (hold == null) {
                        pipe(() -> onFailure(lockMethod, request, target, args, true), out);
                    } else if (out.isDone()) {
                        // Cancelled as the lock was granted.
                        executor.releaseAsync(hold);
                    } else {
                        runHeld(call, hold, executor, out, running);
                    }
                },
                methodExecutor.get());
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void runHeld(
            MethodInvocation call,
            Hold hold,
            LockExecutor executor,
            CompletableFuture<@Nullable Object> out,
            AtomicReference<@Nullable CompletableFuture<?>> running) {
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
        running.set(original);
        if (out.isCancelled()) {
            original.cancel(true);
        }
        hold.onLeaseLost(() -> original.cancel(true));
        original.whenComplete((value, error) -> executor.releaseAsync(hold).whenComplete((ignored, none) -> {
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

    private @Nullable Object onFailure(
            LockMethod lockMethod, LockRequest request, Object target, Object[] args, boolean async) throws Throwable {
        OnFailure policy = lockMethod.annotation().onFailure();
        if (policy == OnFailure.THROW) {
            LockAcquisitionException ex = new LockAcquisitionException(request.displayName(), request.waitTime(), null);
            if (async) {
                return CompletableFuture.failedFuture(ex);
            }
            throw ex;
        }
        if (policy == OnFailure.FALLBACK) {
            return invokeFallback(lockMethod, target, args);
        }
        return empty(lockMethod.method().getReturnType());
    }

    static @Nullable Object invokeFallback(LockMethod lockMethod, Object target, Object[] args) throws Throwable {
        Method fallback = lockMethod.fallback();
        try {
            return fallback.invoke(target, args);
        } catch (InvocationTargetException ex) {
            throw ex.getTargetException();
        }
    }

    static @Nullable Object empty(Class<?> returnType) {
        if (returnType == Optional.class) {
            return Optional.empty();
        }
        if (CompletionStage.class.isAssignableFrom(returnType)) {
            return CompletableFuture.completedFuture(null);
        }
        return null;
    }
}
