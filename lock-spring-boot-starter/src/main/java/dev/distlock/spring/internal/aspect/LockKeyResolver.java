package dev.distlock.spring.internal.aspect;

import dev.distlock.spring.LockType;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.BaseStream;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;

/**
 * Evaluates a {@link LockMethod}'s key and condition for one call.
 */
final class LockKeyResolver {

    private final BeanFactoryResolver beanResolver;

    /**
     * Creates a resolver.
     * @param beanFactory resolves {@code @bean} references
     */
    LockKeyResolver(BeanFactory beanFactory) {
        this.beanResolver = new BeanFactoryResolver(beanFactory);
    }

    /**
     * Root object of lock expressions ({@code #root.method}, {@code #root.target}, {@code #root.args}).
     * @param method the invoked method
     * @param target the target bean
     * @param args the arguments
     */
    public record Root(Method method, Object target, @Nullable Object[] args) {}

    /**
     * Evaluates the condition.
     * @param lockMethod the method
     * @param target the target bean
     * @param args the arguments
     * @return whether to lock
     */
    boolean shouldLock(LockMethod lockMethod, Object target, @Nullable Object[] args) {
        Expression condition = lockMethod.condition();
        if (condition == null) {
            return true;
        }
        Object value = evaluate(
                condition,
                lockMethod,
                target,
                args,
                "condition",
                lockMethod.annotation().condition());
        if (value instanceof Boolean bool) {
            return bool;
        }
        throw new IllegalStateException(
                "Condition '" + lockMethod.annotation().condition() + "' of " + lockMethod.annotationName() + " on "
                        + lockMethod.description() + " must evaluate to a boolean, was " + value);
    }

    /**
     * Resolves the lock names of a call: the template alone, the template and the key, or one name
     * per element when the key yields a collection or an array. A {@link Path} is one name. Any other
     * {@code Iterable}, an {@code Iterator} or a {@code Stream} is refused unread: it may be readable
     * once only ({@code stream::iterator}), and reading it here would leave the method nothing to read.
     * @param lockMethod the method
     * @param target the target bean
     * @param args the arguments
     * @return one or more lock names
     * @throws IllegalStateException if the key is null or blank, or an {@code Iterable},
     *     {@code Iterator} or {@code Stream} that is not a collection
     */
    List<String> names(LockMethod lockMethod, Object target, @Nullable Object[] args) {
        Expression key = lockMethod.key();
        if (key == null) {
            return List.of(lockMethod.template());
        }
        Object value = evaluate(key, lockMethod, target, args, "key", lockMethod.keySource());
        List<Object> parts = new ArrayList<>();
        if (value instanceof Collection<?> collection) {
            parts.addAll(collection);
        } else if (value instanceof Path) {
            parts.add(value);
        } else if (value instanceof Iterable<?> || value instanceof Iterator<?> || value instanceof BaseStream<?, ?>) {
            // Reading the elements could use the value up before the method runs (stream::iterator),
            // and its toString() names the instance, not the elements: refuse it, unread.
            throw oneShot(lockMethod, value);
        } else if (value != null && value.getClass().isArray()) {
            for (int i = 0; i < Array.getLength(value); i++) {
                parts.add(Array.get(value, i));
            }
        } else {
            parts.add(value);
        }
        if (parts.isEmpty()) {
            throw blank(lockMethod, "an empty collection");
        }
        Set<String> names = new LinkedHashSet<>();
        for (Object part : parts) {
            String text = part != null ? part.toString() : null;
            if (text == null || text.isBlank()) {
                throw blank(lockMethod, text == null ? "null" : "a blank string");
            }
            names.add(lockMethod.template() + ":" + text);
        }
        return List.copyOf(names);
    }

    private IllegalStateException oneShot(LockMethod lockMethod, Object value) {
        return new IllegalStateException(
                "Lock key '" + lockMethod.keySource() + "' of " + lockMethod.annotationName() + " on "
                        + lockMethod.description() + " evaluated to a "
                        + value.getClass().getName()
                        + ", an Iterable, Iterator or Stream that is not a Collection: reading its elements for the lock"
                        + " names could use it up before the method runs, so it is not read. Make the key a Collection"
                        + " or an array (pass a List, or end the expression with a call that returns one); the method"
                        + " was not called");
    }

    private IllegalStateException blank(LockMethod lockMethod, String what) {
        return new IllegalStateException("Lock key '" + lockMethod.keySource() + "' of " + lockMethod.annotationName()
                + " on " + lockMethod.description() + " evaluated to " + what + "; the method was not called");
    }

    private @Nullable Object evaluate(
            Expression expression,
            LockMethod lockMethod,
            Object target,
            @Nullable Object[] args,
            String attribute,
            String source) {
        Object[] arguments = args != null ? args : new Object[0];
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                new Root(lockMethod.method(), target, arguments),
                lockMethod.method(),
                arguments,
                LockMethodRegistry.PARAMETER_NAMES);
        context.setBeanResolver(beanResolver);
        try {
            return expression.getValue(context);
        } catch (EvaluationException ex) {
            throw new IllegalStateException(
                    "Cannot evaluate " + (lockMethod.type() == LockType.SEMAPHORE ? "semaphore " : "lock ") + attribute
                            + " '" + source
                            + "' on " + lockMethod.description() + ": "
                            + ex.getMessage(),
                    ex);
        }
    }
}
