package dev.distlock.spring.internal.aspect;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedSemaphore;
import dev.distlock.spring.LockType;
import dev.distlock.spring.internal.config.LockNameSettings;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.expression.Expression;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Finds {@link DistributedLock} methods and parses and checks their attributes once, so that a bad
 * expression, duration or fallback fails startup with a message naming the method.
 */
final class LockMethodRegistry {

    private static final Logger logger = LoggerFactory.getLogger(LockMethodRegistry.class);

    static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    private static final Object NONE = new Object();

    private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>();
    private final Duration defaultWait;
    private final boolean redLockNodes;
    private final LockNameSettings lockNames;
    private final LockAttributes attributes;
    private final LockMethodScanner scanner = new LockMethodScanner(this);

    /**
     * Creates a registry.
     * @param beanFactory resolves placeholders and checks bean references
     * @param defaultWait {@code distlock.defaults.wait-time}
     * @param defaultLease {@code distlock.defaults.lease-time}
     * @param redLockNodes whether {@code distlock.redlock.nodes} is set
     */
    LockMethodRegistry(BeanFactory beanFactory, Duration defaultWait, Duration defaultLease, boolean redLockNodes) {
        this(beanFactory, defaultWait, defaultLease, redLockNodes, LockNameSettings.NONE);
    }

    /**
     * Creates a registry.
     * @param beanFactory resolves placeholders and checks bean references
     * @param defaultWait {@code distlock.defaults.wait-time}
     * @param defaultLease {@code distlock.defaults.lease-time}
     * @param redLockNodes whether {@code distlock.redlock.nodes} is set
     * @param lockNames {@code distlock.locks.<name>.*}, which win over the attributes
     */
    LockMethodRegistry(
            BeanFactory beanFactory,
            Duration defaultWait,
            Duration defaultLease,
            boolean redLockNodes,
            LockNameSettings lockNames) {
        this.attributes = new LockAttributes(beanFactory, defaultLease);
        this.defaultWait = defaultWait;
        this.redLockNodes = redLockNodes;
        this.lockNames = lockNames;
    }

    /**
     * Parses and checks every {@link DistributedLock} method of a bean class; see
     * {@link LockMethodScanner#validate}.
     * @param beanClass the bean's class
     * @return every problem found, one per bad method; empty when all are valid
     */
    List<IllegalStateException> validate(Class<?> beanClass) {
        return scanner.validate(beanClass);
    }

    /**
     * Whether the proxy should advise the method: it is a lock method, or an invalid one, which
     * {@link #validate} reports at startup and which fails when called rather than run unlocked.
     * @param method the method
     * @param targetClass the target class
     * @return whether to advise it
     */
    boolean advises(Method method, @Nullable Class<?> targetClass) {
        return !(lookup(method, targetClass) == NONE);
    }

    /**
     * Returns the parsed lock method, or {@code null} when the method is not annotated.
     * @param method the invoked method
     * @param targetClass the target class, may be {@code null}
     * @return the lock method or {@code null}
     * @throws IllegalStateException if the annotation is invalid
     */
    @Nullable
    LockMethod find(Method method, @Nullable Class<?> targetClass) {
        Object found = lookup(method, targetClass);
        if (found instanceof IllegalStateException invalid) {
            throw invalid;
        }
        return found instanceof LockMethod lockMethod ? lockMethod : null;
    }

    // A failure is kept like a result, so that matching, validation and calls all see the same one.
    private Object lookup(Method method, @Nullable Class<?> targetClass) {
        return cache.computeIfAbsent(new MethodClassKey(method, targetClass), key -> {
            try {
                LockMethod parsed = parse(method, targetClass);
                return parsed != null ? parsed : NONE;
            } catch (IllegalStateException ex) {
                return ex;
            }
        });
    }

    private @Nullable LockMethod parse(Method method, @Nullable Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
        if (annotation == null && specific != method) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
        }
        if (annotation == null && targetClass != null) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(targetClass, DistributedLock.class);
        }
        DistributedSemaphore semaphore =
                AnnotatedElementUtils.findMergedAnnotation(specific, DistributedSemaphore.class);
        if (semaphore == null && specific != method) {
            semaphore = AnnotatedElementUtils.findMergedAnnotation(method, DistributedSemaphore.class);
        }
        if (semaphore != null && Modifier.isPublic(specific.getModifiers())) {
            Class<?> owner = targetClass != null ? targetClass : specific.getDeclaringClass();
            String where = "@DistributedSemaphore on " + ClassUtils.getShortName(ClassUtils.getUserClass(owner)) + "."
                    + specific.getName() + LockAttributes.signature(specific);
            if (annotation != null) {
                throw new IllegalStateException(where + ": the method also has @DistributedLock (on the method or "
                        + "its class); a method takes either a lock or a semaphore permit, so keep one of the two");
            }
            if (semaphore.permits() < 1) {
                throw new IllegalStateException(where + ": permits must be at least 1, was " + semaphore.permits());
            }
            return parse(specific, owner, asLock(semaphore, specific), where, semaphore.permits());
        }
        if (annotation == null
                || !Modifier.isPublic(specific.getModifiers())
                || specific.getDeclaringClass() == Object.class) {
            return null;
        }
        Class<?> owner = targetClass != null ? targetClass : specific.getDeclaringClass();
        String where = "@DistributedLock on " + ClassUtils.getShortName(ClassUtils.getUserClass(owner)) + "."
                + specific.getName() + LockAttributes.signature(specific);
        return parse(specific, owner, annotation, where, 0);
    }

    /**
     * A semaphore's attributes as a {@code @DistributedLock}, so that one set of rules (names, keys,
     * durations, per-name settings, failure policy, fallback) reads both annotations.
     */
    private static DistributedLock asLock(DistributedSemaphore semaphore, Method method) {
        Map<String, Object> attributes = new HashMap<>();
        attributes.put("name", semaphore.name());
        attributes.put("key", semaphore.key());
        attributes.put("condition", semaphore.condition());
        attributes.put("waitTime", semaphore.waitTime());
        attributes.put("leaseTime", semaphore.leaseTime());
        attributes.put("onFailure", semaphore.onFailure());
        attributes.put("fallback", semaphore.fallback());
        return AnnotationUtils.synthesizeAnnotation(attributes, DistributedLock.class, method);
    }

    /** Parses one annotated method; {@code permits} is 0 for a lock, the count for a semaphore. */
    private LockMethod parse(Method specific, Class<?> owner, DistributedLock annotation, String where, int permits) {
        String description = ClassUtils.getShortName(ClassUtils.getUserClass(owner)) + "." + specific.getName();
        LockType type = permits > 0 ? LockType.SEMAPHORE : annotation.type();
        String template = StringUtils.hasText(annotation.name())
                ? attributes.resolvePlaceholders(annotation.name(), where, "name")
                : description;
        Expression key = attributes.parseChecked(annotation.key(), specific, where, "key");
        Expression condition = attributes.parseChecked(annotation.condition(), specific, where, "condition");
        LockNameSettings.Applied perName = lockNames.apply(
                template,
                type,
                annotation.fenced(),
                attributes.duration(annotation.waitTime(), defaultWait, where, "waitTime"),
                attributes.lease(annotation.leaseTime(), where),
                where);
        if (!perName.overrides().isEmpty()) {
            logger.info("{} locks '{}' with {}", where, template, String.join(", ", perName.overrides()));
        }
        Duration wait = perName.waitTime();
        Duration lease = perName.leaseTime();
        Duration minHold = attributes.minHold(annotation.minHoldTime(), where);
        LockAttributes.checkLeaseCoversMinHold(
                lease, minHold, perName.leaseSource(), StringUtils.hasText(annotation.leaseTime()), where);
        LockMethodRules.warnIfScheduledAndWaiting(specific, wait, where);
        LockMethod.Kind kind = LockMethodKinds.kind(specific, where);
        LockMethodRules.checkCombinations(annotation, specific, redLockNodes, where);
        Method fallback = LockMethodRules.fallback(annotation, specific, owner, where);
        LockMethodRules.checkSkip(annotation, specific, where);
        LockMethodRules.warnIfAsync(specific, where);
        return new LockMethod(
                specific,
                description,
                annotation,
                template,
                key,
                annotation.key(),
                condition,
                wait,
                lease,
                fallback,
                kind,
                minHold,
                kind == LockMethod.Kind.ADAPTED ? LockMethodKinds.adapter(specific.getReturnType()) : null,
                perName.type(),
                permits);
    }
}
