package dev.distlock.spring.internal.aspect;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedSemaphore;
import dev.distlock.spring.internal.config.DistlockStartupException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Checks every method of a bean class at startup, for {@link DistributedLockValidator}: annotated
 * methods no proxy can lock (static, not public, final), and the attributes of every lock method,
 * collecting all problems rather than stopping at the first.
 */
final class LockMethodScanner {

    /**
     * @param annotation the method's annotation, as {@code @Name}
     * @return what to do about a method no proxy can lock
     */
    static String unproxiableAction(String annotation) {
        return "Make the method public, non-static and non-final so that the proxy can lock it, or remove " + annotation
                + " from it.";
    }

    private final LockMethodRegistry registry;
    private final Map<Class<?>, List<IllegalStateException>> validated = new ConcurrentHashMap<>();

    LockMethodScanner(LockMethodRegistry registry) {
        this.registry = registry;
    }

    /**
     * Parses and checks every {@link DistributedLock} method of a bean class, whatever the proxy
     * type: a JDK proxy stops looking at the first matching method, so without this a second, bad
     * method would fail only when first called. An annotated method that is not public fails too:
     * neither proxy type would lock it.
     * @param beanClass the bean's class
     * @return every problem found, one per bad method (a {@link DistlockStartupException} when it
     *         says what to change other than an attribute); empty when all are valid
     */
    List<IllegalStateException> validate(Class<?> beanClass) {
        return validated.computeIfAbsent(ClassUtils.getUserClass(beanClass), this::check);
    }

    private List<IllegalStateException> check(Class<?> userClass) {
        // By message: a method seen through the class and again through an interface is one problem.
        Map<String, IllegalStateException> problems = new LinkedHashMap<>();
        ReflectionUtils.doWithMethods(
                userClass,
                method -> {
                    try {
                        checkMethod(method, userClass);
                    } catch (IllegalStateException ex) {
                        problems.putIfAbsent(ex.getMessage(), ex);
                    }
                },
                method -> method.getDeclaringClass() != Object.class);
        for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(userClass)) {
            for (Method method : type.getMethods()) {
                if (!method.isDefault() && !Modifier.isStatic(method.getModifiers())) {
                    try {
                        registry.find(method, userClass);
                    } catch (IllegalStateException ex) {
                        problems.putIfAbsent(ex.getMessage(), ex);
                    }
                }
            }
        }
        return List.copyOf(problems.values());
    }

    private void checkMethod(Method method, Class<?> userClass) {
        if (method.isBridge() || method.isSynthetic()) {
            return;
        }
        boolean semaphore = AnnotatedElementUtils.hasAnnotation(method, DistributedSemaphore.class);
        boolean annotated = semaphore || AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class);
        int modifiers = method.getModifiers();
        if (annotated) {
            String annotation = semaphore ? "@DistributedSemaphore" : "@DistributedLock";
            String action = unproxiableAction(annotation);
            String where = annotation + " on " + ClassUtils.getShortName(userClass) + "." + method.getName()
                    + LockAttributes.signature(method);
            if (Modifier.isStatic(modifiers)) {
                throw new DistlockStartupException(
                        where + ": the method is static; proxies lock only instance methods, so it would run "
                                + "without the lock",
                        action,
                        null);
            }
            if (!Modifier.isPublic(modifiers)) {
                throw new DistlockStartupException(
                        where + ": the method is " + visibility(modifiers) + "; it must be public: proxies lock "
                                + "only public methods called from another bean, so it would run without the lock",
                        action,
                        null);
            }
            // A class-based proxy (Spring Boot's default, even for beans with interfaces) cannot override a
            // final method: the call would reach the method unadvised.
            if (Modifier.isFinal(modifiers)) {
                throw new DistlockStartupException(
                        where + ": the method is final; a class-based proxy cannot override it, so it would run "
                                + "without the lock",
                        action,
                        null);
            }
        }
        if (!Modifier.isStatic(modifiers) && (annotated || Modifier.isPublic(modifiers))) {
            registry.find(method, userClass);
        }
    }

    private static String visibility(int modifiers) {
        if (Modifier.isProtected(modifiers)) {
            return "protected";
        }
        return Modifier.isPrivate(modifiers) ? "private" : "package-private";
    }
}
