package dev.distlock.spring.internal.aspect;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockType;
import dev.distlock.spring.OnFailure;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Collection;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * The rules between a {@code @DistributedLock}'s attributes, its method and the application: which
 * combinations fail startup (fenced non-reentrant or multi locks, red locks without nodes, a
 * missing or incompatible fallback, {@code SKIP} on a primitive) and which only warn
 * ({@code @Scheduled} with a wait, {@code @Async}).
 */
final class LockMethodRules {

    // Logged under the registry's name, as before these rules had a class of their own.
    private static final Logger logger = LoggerFactory.getLogger(LockMethodRegistry.class);

    private LockMethodRules() {}

    static void warnIfScheduledAndWaiting(Method method, Duration wait, String where) {
        Class<? extends Annotation> scheduled = annotationType("org.springframework.scheduling.annotation.Scheduled");
        if (scheduled != null
                && !wait.isZero()
                && (AnnotatedElementUtils.hasAnnotation(method, scheduled)
                        || AnnotatedElementUtils.hasAnnotation(
                                method, annotationType("org.springframework.scheduling.annotation.Schedules")))) {
            logger.warn(
                    "{} is @Scheduled and waits {} for its lock: every instance runs the job in turn, one "
                            + "after the other. Set waitTime = \"0\" to run it once per schedule, and minHoldTime longer "
                            + "than the clock skew between instances",
                    where,
                    wait.isNegative() ? "without limit" : wait);
        }
    }

    static void warnIfAsync(Method method, String where) {
        Class<? extends Annotation> async = annotationType("org.springframework.scheduling.annotation.Async");
        if (async != null && AnnotatedElementUtils.hasAnnotation(method, async)) {
            logger.warn(
                    "{} also has @Async: the lock is taken on the executor thread, inside the @Async advice", where);
        }
    }

    static void checkSkip(DistributedLock annotation, Method method, String where) {
        if (annotation.onFailure() == OnFailure.SKIP
                && method.getReturnType().isPrimitive()
                && method.getReturnType() != void.class) {
            throw new IllegalStateException(where + ": onFailure=SKIP cannot return a value of primitive type "
                    + method.getReturnType().getName());
        }
    }

    @SuppressWarnings("unchecked")
    private static @Nullable Class<? extends Annotation> annotationType(String name) {
        try {
            return (Class<? extends Annotation>) ClassUtils.forName(name, LockMethodRules.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError ex) {
            return null;
        }
    }

    static void checkCombinations(DistributedLock annotation, Method method, boolean redLockNodes, String where) {
        if (annotation.fenced() && annotation.type() != LockType.REENTRANT) {
            throw new IllegalStateException(where + ": fenced = true needs type REENTRANT, not type "
                    + annotation.type() + "; only a reentrant lock issues fencing tokens");
        }
        if (annotation.fenced() && keyIsCollection(annotation.key(), method)) {
            throw new IllegalStateException(where + ": fenced = true with key '" + annotation.key()
                    + "', a collection or array (a multi lock); a multi lock has no single fencing token");
        }
        if (annotation.type() == LockType.SEMAPHORE) {
            throw new IllegalStateException(where + ": type = SEMAPHORE needs a permit count; use "
                    + "@DistributedSemaphore(permits = ...) instead of @DistributedLock");
        }
        if (annotation.type() == LockType.RED && !redLockNodes) {
            throw new IllegalStateException(where + ": type = RED needs independent Redis masters; set "
                    + "distlock.redlock.nodes (e.g. redis://host1:6379,redis://host2:6379,redis://host3:6379)");
        }
    }

    /** Whether the key is a parameter declared as a collection or an array, which locks every element. */
    private static boolean keyIsCollection(String key, Method method) {
        String text = key.trim();
        if (!text.matches("#\\w+")) {
            return false;
        }
        String name = text.substring(1);
        String[] names = LockMethodRegistry.PARAMETER_NAMES.getParameterNames(method);
        for (int i = 0; i < method.getParameterCount(); i++) {
            if (name.equals("p" + i) || name.equals("a" + i) || (names != null && name.equals(names[i]))) {
                Class<?> type = method.getParameterTypes()[i];
                return type.isArray() || Collection.class.isAssignableFrom(type);
            }
        }
        return false;
    }

    static @Nullable Method fallback(DistributedLock annotation, Method method, Class<?> owner, String where) {
        if (annotation.onFailure() != OnFailure.FALLBACK) {
            if (StringUtils.hasText(annotation.fallback())) {
                throw new IllegalStateException(
                        where + ": fallback '" + annotation.fallback() + "' is set but onFailure is "
                                + annotation.onFailure() + "; use onFailure = OnFailure.FALLBACK");
            }
            return null;
        }
        if (!StringUtils.hasText(annotation.fallback())) {
            throw new IllegalStateException(where + ": onFailure=FALLBACK needs the fallback method name");
        }
        Method fallback = ReflectionUtils.findMethod(owner, annotation.fallback(), method.getParameterTypes());
        if (fallback == null) {
            throw new IllegalStateException(where + ": fallback method " + annotation.fallback()
                    + LockAttributes.signature(method) + " not found on " + owner.getName());
        }
        if (!ClassUtils.resolvePrimitiveIfNecessary(method.getReturnType())
                .isAssignableFrom(ClassUtils.resolvePrimitiveIfNecessary(fallback.getReturnType()))) {
            throw new IllegalStateException(where + ": fallback method " + annotation.fallback() + " returns "
                    + fallback.getReturnType().getName() + ", not "
                    + method.getReturnType().getName());
        }
        ReflectionUtils.makeAccessible(fallback);
        return fallback;
    }
}
