package dev.distlock.spring.internal.aot;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedSemaphore;
import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Registers, for each bean with {@link DistributedLock} or {@link DistributedSemaphore} methods,
 * reflection hints for those methods (their annotations are read at run time) and for the fallback
 * methods they name (invoked reflectively). Registered through {@code META-INF/spring/aot.factories}.
 */
public final class DistributedLockAotProcessor implements BeanRegistrationAotProcessor {

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        Class<?> beanClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
        Set<Method> locked = new LinkedHashSet<>();
        Set<Method> fallbacks = new LinkedHashSet<>();
        // A class-level annotation applies to every method of the class, as at startup.
        DistributedLock onClass = AnnotatedElementUtils.findMergedAnnotation(beanClass, DistributedLock.class);
        ReflectionUtils.doWithMethods(
                beanClass,
                method -> {
                    String fallbackName = fallbackName(method, onClass);
                    if (fallbackName == null) {
                        return;
                    }
                    locked.add(method);
                    if (StringUtils.hasText(fallbackName)) {
                        // The same lookup as at startup; a missing fallback fails startup there with a clear message.
                        Method fallback =
                                ReflectionUtils.findMethod(beanClass, fallbackName, method.getParameterTypes());
                        if (fallback != null) {
                            fallbacks.add(fallback);
                        }
                    }
                },
                ReflectionUtils.USER_DECLARED_METHODS);
        if (locked.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> register(generationContext.getRuntimeHints(), locked, fallbacks);
    }

    // The fallback a lock or semaphore method names ("" for none), or null when the method has neither.
    private static @Nullable String fallbackName(Method method, @Nullable DistributedLock onClass) {
        DistributedSemaphore semaphore = AnnotatedElementUtils.findMergedAnnotation(method, DistributedSemaphore.class);
        if (semaphore != null) {
            return semaphore.fallback();
        }
        DistributedLock lock = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
        if (lock == null) {
            lock = onClass;
        }
        return lock == null ? null : lock.fallback();
    }

    private static void register(RuntimeHints hints, Set<Method> locked, Set<Method> fallbacks) {
        locked.forEach(method -> hints.reflection().registerMethod(method, ExecutableMode.INTROSPECT));
        fallbacks.forEach(method -> hints.reflection().registerMethod(method, ExecutableMode.INVOKE));
    }
}
