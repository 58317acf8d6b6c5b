package dev.distlock.spring.internal;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.OnFailure;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Finds {@link DistributedLock} methods and parses and checks their attributes once, so that a bad
 * expression, duration or fallback fails startup with a message naming the method.
 */
final class LockMethodRegistry {

    private static final Logger logger = LoggerFactory.getLogger(LockMethodRegistry.class);

    static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    private static final Object NONE = new Object();

    private static final String DEFAULT_LEASE_PROPERTY = "distlock.defaults.lease-time";

    /** The lease that asks for the watchdog: {@code "-1"}, whose unit is milliseconds. */
    static final Duration WATCHDOG = Duration.ofMillis(-1);

    private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>();
    private final BeanFactory beanFactory;
    private final LockExpressions expressions;
    private final Duration defaultWait;
    private final Duration defaultLease;
    private final boolean redLockNodes;
    private final LockNameSettings lockNames;
    private final Map<Class<?>, List<IllegalStateException>> validated = new ConcurrentHashMap<>();

    /** What to do about a method no proxy can lock. */
    static final String UNPROXIABLE_ACTION = "Make the method public, non-static and non-final so that the proxy can "
            + "lock it, or remove @DistributedLock from it.";

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
        this.beanFactory = beanFactory;
        this.expressions = new LockExpressions(beanFactory);
        this.defaultWait = defaultWait;
        this.defaultLease = defaultLease;
        this.redLockNodes = redLockNodes;
        this.lockNames = lockNames;
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
                        find(method, userClass);
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
        boolean annotated = AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class);
        int modifiers = method.getModifiers();
        if (annotated) {
            String where = "@DistributedLock on " + ClassUtils.getShortName(userClass) + "." + method.getName()
                    + signature(method);
            if (Modifier.isStatic(modifiers)) {
                throw new DistlockStartupException(
                        where + ": the method is static; proxies lock only instance methods, so it would run "
                                + "without the lock",
                        UNPROXIABLE_ACTION,
                        null);
            }
            if (!Modifier.isPublic(modifiers)) {
                throw new DistlockStartupException(
                        where + ": the method is " + visibility(modifiers) + "; it must be public: proxies lock "
                                + "only public methods called from another bean, so it would run without the lock",
                        UNPROXIABLE_ACTION,
                        null);
            }
            // A class-based proxy (Spring Boot's default, even for beans with interfaces) cannot override a
            // final method: the call would reach the method unadvised.
            if (Modifier.isFinal(modifiers)) {
                throw new DistlockStartupException(
                        where + ": the method is final; a class-based proxy cannot override it, so it would run "
                                + "without the lock",
                        UNPROXIABLE_ACTION,
                        null);
            }
        }
        if (!Modifier.isStatic(modifiers) && (annotated || Modifier.isPublic(modifiers))) {
            find(method, userClass);
        }
    }

    private static String visibility(int modifiers) {
        if (Modifier.isProtected(modifiers)) {
            return "protected";
        }
        return Modifier.isPrivate(modifiers) ? "private" : "package-private";
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
        String where = "@DistributedLock on " + description + signature(specific);
        String template = StringUtils.hasText(annotation.name())
                ? resolvePlaceholders(annotation.name(), where, "name")
                : description;
        Expression key = parseChecked(annotation.key(), specific, where, "key");
        Expression condition = parseChecked(annotation.condition(), specific, where, "condition");
        LockNameSettings.Applied perName = lockNames.apply(
                template,
                annotation.type(),
                annotation.fenced(),
                duration(annotation.waitTime(), defaultWait, where, "waitTime"),
                lease(annotation.leaseTime(), where),
                where);
        if (!perName.overrides().isEmpty()) {
            logger.info("{} locks '{}' with {}", where, template, String.join(", ", perName.overrides()));
        }
        Duration wait = perName.waitTime();
        Duration lease = perName.leaseTime();
        Duration minHold = duration(annotation.minHoldTime(), Duration.ZERO, where, "minHoldTime");
        if (minHold.isNegative()) {
            throw new IllegalStateException(
                    where + ": minHoldTime must be a positive duration, was '" + annotation.minHoldTime() + "'");
        }
        if (!lease.isNegative() && lease.compareTo(minHold) < 0) {
            String leaseSource = perName.leaseSource() != null
                    ? perName.leaseSource()
                    : StringUtils.hasText(annotation.leaseTime()) ? null : DEFAULT_LEASE_PROPERTY;
            String problem = where + ": " + (leaseSource != null ? leaseSource : "leaseTime") + " "
                    + lease + " is shorter than minHoldTime " + minHold
                    + "; the lock would expire before the minimum hold ends";
            if (leaseSource == null) {
                throw new IllegalStateException(problem);
            }
            throw new DistlockStartupException(
                    problem,
                    "Set " + leaseSource + " to at least the method's minHoldTime, or give the method its own "
                            + "leaseTime.",
                    null);
        }
        Class<? extends java.lang.annotation.Annotation> scheduled =
                annotationType("org.springframework.scheduling.annotation.Scheduled");
        if (scheduled != null
                && !wait.isZero()
                && (AnnotatedElementUtils.hasAnnotation(specific, scheduled)
                        || AnnotatedElementUtils.hasAnnotation(
                                specific, annotationType("org.springframework.scheduling.annotation.Schedules")))) {
            logger.warn(
                    "{} is @Scheduled and waits {} for its lock: every instance runs the job in turn, one "
                            + "after the other. Set waitTime = \"0\" to run it once per schedule, and minHoldTime longer "
                            + "than the clock skew between instances",
                    where,
                    wait.isNegative() ? "without limit" : wait);
        }
        LockMethod.Kind kind = LockMethodKinds.kind(specific, where);
        checkCombinations(annotation, specific, where);
        Method fallback = fallback(annotation, specific, owner, where);
        if (annotation.onFailure() == OnFailure.SKIP
                && specific.getReturnType().isPrimitive()
                && specific.getReturnType() != void.class) {
            throw new IllegalStateException(where + ": onFailure=SKIP cannot return a value of primitive type "
                    + specific.getReturnType().getName());
        }
        Class<? extends java.lang.annotation.Annotation> async =
                annotationType("org.springframework.scheduling.annotation.Async");
        if (async != null && AnnotatedElementUtils.hasAnnotation(specific, async)) {
            logger.warn(
                    "{} also has @Async: the lock is taken on the executor thread, inside the @Async advice", where);
        }
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

    @SuppressWarnings("unchecked")
    private static @Nullable Class<? extends java.lang.annotation.Annotation> annotationType(String name) {
        try {
            return (Class<? extends java.lang.annotation.Annotation>)
                    ClassUtils.forName(name, LockMethodRegistry.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError ex) {
            return null;
        }
    }

    private void checkCombinations(DistributedLock annotation, Method method, String where) {
        if (annotation.fenced() && annotation.type() != dev.distlock.spring.LockType.REENTRANT) {
            throw new IllegalStateException(where + ": fenced = true needs type REENTRANT, not type "
                    + annotation.type() + "; only a reentrant lock issues fencing tokens");
        }
        if (annotation.fenced() && keyIsCollection(annotation.key(), method)) {
            throw new IllegalStateException(where + ": fenced = true with key '" + annotation.key()
                    + "', a collection or array (a multi lock); a multi lock has no single fencing token");
        }
        if (annotation.type() == dev.distlock.spring.LockType.RED && !redLockNodes) {
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
        String[] names = PARAMETER_NAMES.getParameterNames(method);
        for (int i = 0; i < method.getParameterCount(); i++) {
            if (name.equals("p" + i) || name.equals("a" + i) || (names != null && name.equals(names[i]))) {
                Class<?> type = method.getParameterTypes()[i];
                return type.isArray() || java.util.Collection.class.isAssignableFrom(type);
            }
        }
        return false;
    }

    private static @Nullable Method fallback(DistributedLock annotation, Method method, Class<?> owner, String where) {
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
            throw new IllegalStateException(where + ": fallback method " + annotation.fallback() + signature(method)
                    + " not found on " + owner.getName());
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

    /**
     * The lease an attribute asks for: empty for {@code distlock.defaults.lease-time}, {@code "-1"}
     * for the watchdog, else a positive duration. Any other negative is a sign error, not a
     * request for an unbounded lease, and fails.
     */
    private Duration lease(String value, String where) {
        Duration lease = duration(value, defaultLease, where, "leaseTime");
        if (!StringUtils.hasText(value)) {
            return lease;
        }
        if (lease.isZero()) {
            throw new IllegalStateException(where + ": leaseTime must be positive, or \"-1\" for a "
                    + "watchdog-renewed lease; was '" + value + "'");
        }
        if (lease.isNegative() && !lease.equals(WATCHDOG)) {
            throw new IllegalStateException(where + ": leaseTime '" + value + "' is negative; use a positive "
                    + "duration, or \"-1\" for a watchdog-renewed lease");
        }
        return lease;
    }

    private Duration duration(String value, Duration defaultValue, String where, String attribute) {
        if (!StringUtils.hasText(value)) {
            return defaultValue;
        }
        String resolved = resolvePlaceholders(value, where, attribute).trim();
        if (resolved.equals("-1")) {
            return Duration.ofMillis(-1);
        }
        try {
            return DurationStyle.detectAndParse(resolved);
        } catch (IllegalArgumentException ex) {
            throw new IllegalStateException(
                    where + ": " + attribute + " '" + value
                            + "' is not a duration (use e.g. \"5s\", \"500ms\", \"PT1M\" or \"-1\")",
                    ex);
        }
    }

    private String resolvePlaceholders(String value, String where, String attribute) {
        if (!value.contains("${") || !(beanFactory instanceof ConfigurableBeanFactory configurable)) {
            return value;
        }
        try {
            String resolved = configurable.resolveEmbeddedValue(value);
            return resolved != null ? resolved : value;
        } catch (IllegalArgumentException ex) {
            throw new IllegalStateException(
                    where + ": cannot resolve " + attribute + " '" + value + "': " + ex.getMessage(), ex);
        }
    }

    private @Nullable Expression parseChecked(String source, Method method, String where, String attribute) {
        if (!StringUtils.hasText(source)) {
            return null;
        }
        return expressions.parse(resolvePlaceholders(source, where, attribute), source, method, where, attribute);
    }

    private static String signature(Method method) {
        return Arrays.stream(method.getParameterTypes())
                .map(Class::getSimpleName)
                .collect(java.util.stream.Collectors.joining(", ", "(", ")"));
    }
}
