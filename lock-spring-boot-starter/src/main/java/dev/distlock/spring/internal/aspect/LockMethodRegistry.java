package dev.distlock.spring.internal.aspect;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.internal.config.LockNameSettings;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
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
        if (annotation == null
                || !Modifier.isPublic(specific.getModifiers())
                || specific.getDeclaringClass() == Object.class) {
            return null;
        }
        Class<?> owner = targetClass != null ? targetClass : specific.getDeclaringClass();
        String description = ClassUtils.getShortName(ClassUtils.getUserClass(owner)) + "." + specific.getName();
        String where = "@DistributedLock on " + description + LockAttributes.signature(specific);
        String template = StringUtils.hasText(annotation.name())
                ? attributes.resolvePlaceholders(annotation.name(), where, "name")
                : description;
        Expression key = attributes.parseChecked(annotation.key(), specific, where, "key");
        Expression condition = attributes.parseChecked(annotation.condition(), specific, where, "condition");
        LockNameSettings.Applied perName = lockNames.apply(
                template,
                annotation.type(),
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
                perName.type());
    }
}
