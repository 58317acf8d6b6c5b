package dev.distlock.spring.internal.aspect;

import dev.distlock.spring.LockAcquisitionException;
import dev.distlock.spring.internal.hold.CurrentLockContext;
import dev.distlock.spring.internal.hold.Hold;
import dev.distlock.spring.internal.hold.LockExecutor;
import dev.distlock.spring.internal.hold.LockRequest;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ClassUtils;

/**
 * Runs {@link dev.distlock.spring.DistributedLock} methods under their lock, dispatching on the
 * return type: plain (here), {@code CompletionStage} (through {@link StageLockInvocation}), or
 * Reactor (through {@link ReactiveLockSupport}); a lock not acquired goes to {@link LockFailures}.
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
                lockMethod.minHoldTime(),
                lockMethod.permits());
        return switch (lockMethod.kind()) {
            case SYNC -> invokeSync(invocation, lockMethod, request, target, args);
            case COMPLETION_STAGE ->
                new StageLockInvocation(executor(), methodExecutor.get())
                        .invoke(invocation, lockMethod, request, target, args);
            case MONO, FLUX, SUSPEND, ADAPTED ->
                reactive(lockMethod).invoke(invocation, lockMethod, request, executor(), target, args);
        };
    }

    private ReactiveLockSupport reactive(LockMethod lockMethod) {
        ReactiveLockSupport support = reactiveProvider.getIfAvailable();
        if (support == null) {
            throw new IllegalStateException(lockMethod.annotationName() + " on " + lockMethod.description()
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
            return LockFailures.onFailure(lockMethod, request, target, args, false);
        }
        CurrentLockContext.Frame previous =
                CurrentLockContext.enter(hold.name(), hold.type(), hold.fencingToken(), hold::isHeld);
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable ex) {
            CurrentLockContext.restore(previous);
            if (!(TX_PRESENT && deferredToTransaction(executor, hold, invocation, target))) {
                executor.release(hold);
            }
            throw ex;
        }
        CurrentLockContext.restore(previous);
        if (TX_PRESENT && deferredToTransaction(executor, hold, invocation, target)) {
            return result;
        }
        executor.release(hold);
        executor.checkLeaseLost(hold);
        return result;
    }

    private static boolean deferredToTransaction(
            LockExecutor executor, Hold hold, MethodInvocation invocation, Object target) {
        return TransactionReleaseSupport.releaseAfterTransaction(
                executor, hold, invocation.getMethod(), AopUtils.getTargetClass(target));
    }
}
