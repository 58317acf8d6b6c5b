package dev.distlock.spring.internal.aspect;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Parses the key and condition expressions of a {@code @DistributedLock} method at startup and
 * refuses one that names a variable the method does not have or a bean the context does not have,
 * so that a typo fails at startup, not at the first call.
 */
final class LockExpressions {

    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final BeanFactory beanFactory;

    LockExpressions(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /**
     * Parses an expression and checks every variable and bean it names.
     * @param text the expression, placeholders resolved
     * @param source the expression as written, for messages
     * @throws IllegalStateException naming the method, the attribute and what is wrong
     */
    Expression parse(String text, String source, Method method, String where, String attribute) {
        Expression expression;
        try {
            expression = parser.parseExpression(text);
        } catch (ParseException ex) {
            throw new IllegalStateException(
                    "Invalid " + attribute + " expression '" + source + "' in " + where + ": " + ex.getSimpleMessage(),
                    ex);
        }
        if (expression instanceof SpelExpression spel) {
            check(spel.getAST(), allowedVariables(method), method, source, where, attribute);
        }
        return expression;
    }

    private void check(
            SpelNode node, Set<String> variables, Method method, String source, String where, String attribute) {
        if (node instanceof VariableReference) {
            String name = node.toStringAST().substring(1);
            if (!variables.contains(name)) {
                String hint = LockMethodRegistry.PARAMETER_NAMES.getParameterNames(method) == null
                                && method.getParameterCount() > 0
                        ? " (parameter names are not available: compile with -parameters or use #p0/#a0)"
                        : " (known: " + variables.stream().sorted().toList() + ")";
                throw new IllegalStateException("Invalid " + attribute + " expression '" + source + "' in " + where
                        + ": unknown variable #" + name + hint);
            }
        }
        if (node instanceof BeanReference) {
            String name = node.toStringAST().substring(1).replace("'", "");
            if (!name.startsWith("&") && !beanFactory.containsBean(name)) {
                throw new IllegalStateException("Invalid " + attribute + " expression '" + source + "' in " + where
                        + ": no bean named '" + name + "'");
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            check(node.getChild(i), variables, method, source, where, attribute);
        }
    }

    private static Set<String> allowedVariables(Method method) {
        Set<String> names = new HashSet<>(Set.of("root", "this"));
        for (int i = 0; i < method.getParameterCount(); i++) {
            names.add("p" + i);
            names.add("a" + i);
        }
        String[] parameterNames = LockMethodRegistry.PARAMETER_NAMES.getParameterNames(method);
        if (parameterNames != null) {
            names.addAll(Arrays.asList(parameterNames));
        }
        return names;
    }
}
