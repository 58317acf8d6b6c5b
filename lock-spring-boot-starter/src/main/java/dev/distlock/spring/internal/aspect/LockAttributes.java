package dev.distlock.spring.internal.aspect;

import dev.distlock.spring.internal.config.DistlockStartupException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.expression.Expression;
import org.springframework.util.StringUtils;

/**
 * Reads the text attributes of a {@code @DistributedLock}: placeholders, expressions and durations,
 * with one lease rule ({@code "-1"} is the watchdog, any other negative fails). Every failure names
 * the method and the attribute, or the property when the value came from one.
 */
final class LockAttributes {

    private static final String DEFAULT_LEASE_PROPERTY = "distlock.defaults.lease-time";

    /** The lease that asks for the watchdog: {@code "-1"}, whose unit is milliseconds. */
    static final Duration WATCHDOG = Duration.ofMillis(-1);

    private final BeanFactory beanFactory;
    private final LockExpressions expressions;
    private final Duration defaultLease;

    LockAttributes(BeanFactory beanFactory, Duration defaultLease) {
        this.beanFactory = beanFactory;
        this.expressions = new LockExpressions(beanFactory);
        this.defaultLease = defaultLease;
    }

    /**
     * The lease an attribute asks for: empty for {@code distlock.defaults.lease-time}, {@code "-1"}
     * for the watchdog, else a positive duration. Any other negative is a sign error, not a
     * request for an unbounded lease, and fails.
     */
    Duration lease(String value, String where) {
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

    Duration duration(String value, Duration defaultValue, String where, String attribute) {
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

    String resolvePlaceholders(String value, String where, String attribute) {
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

    @Nullable
    Expression parseChecked(String source, Method method, String where, String attribute) {
        if (!StringUtils.hasText(source)) {
            return null;
        }
        return expressions.parse(resolvePlaceholders(source, where, attribute), source, method, where, attribute);
    }

    /**
     * The minimum hold an attribute asks for, zero when empty.
     * @throws IllegalStateException naming the attribute when it is not a positive duration
     */
    Duration minHold(String value, String where) {
        Duration minHold = duration(value, Duration.ZERO, where, "minHoldTime");
        if (minHold.isNegative()) {
            throw new IllegalStateException(where + ": minHoldTime must be a positive duration, was '" + value + "'");
        }
        return minHold;
    }

    /**
     * Fails when a bounded lease would expire before the minimum hold ends, naming where the lease
     * came from: a per-name property, {@code distlock.defaults.lease-time}, or the attribute.
     * @param lease the lease in effect
     * @param minHold the minimum hold
     * @param perNameSource the per-name property that set the lease, or {@code null}
     * @param attributeSet whether the method's {@code leaseTime} attribute is set
     * @param where the method, for messages
     */
    static void checkLeaseCoversMinHold(
            Duration lease, Duration minHold, @Nullable String perNameSource, boolean attributeSet, String where) {
        if (lease.isNegative() || lease.compareTo(minHold) >= 0) {
            return;
        }
        String leaseSource = perNameSource != null ? perNameSource : attributeSet ? null : DEFAULT_LEASE_PROPERTY;
        String problem = where + ": " + (leaseSource != null ? leaseSource : "leaseTime") + " " + lease
                + " is shorter than minHoldTime " + minHold + "; the lock would expire before the minimum hold ends";
        if (leaseSource == null) {
            throw new IllegalStateException(problem);
        }
        throw new DistlockStartupException(
                problem,
                "Set " + leaseSource + " to at least the method's minHoldTime, or give the method its own leaseTime.",
                null);
    }

    static String signature(Method method) {
        return Arrays.stream(method.getParameterTypes())
                .map(Class::getSimpleName)
                .collect(Collectors.joining(", ", "(", ")"));
    }
}
