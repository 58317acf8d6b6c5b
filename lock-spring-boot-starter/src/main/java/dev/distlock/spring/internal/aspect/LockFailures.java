package dev.distlock.spring.internal.aspect;

import dev.distlock.spring.LockAcquisitionException;
import dev.distlock.spring.OnFailure;
import dev.distlock.spring.internal.hold.LockRequest;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * What a {@code @DistributedLock} method gives back when its lock was not acquired, by its
 * {@link OnFailure} policy: a {@link LockAcquisitionException}, the fallback's result, or an empty
 * value of the return type.
 */
final class LockFailures {

    private LockFailures() {}

    static @Nullable Object onFailure(
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
