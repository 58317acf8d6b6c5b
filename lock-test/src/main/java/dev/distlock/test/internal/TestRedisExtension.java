package dev.distlock.test.internal;

import dev.distlock.test.DistlockTestRedis;
import dev.distlock.test.TestRedis;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit side of {@link DistlockTestRedis}: resolves {@link TestRedis} parameters and, when
 * asked, empties the server before each test.
 */
public final class TestRedisExtension implements ParameterResolver, BeforeEachCallback {

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == TestRedis.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return server(extensionContext.getTestClass().orElse(null));
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        boolean flush = context.getTestClass()
                .flatMap(type -> findAnnotation(type))
                .map(DistlockTestRedis::flushBeforeEach)
                .orElse(false);
        if (flush) {
            server(context.getTestClass().orElse(null)).flushAll();
        }
    }

    /**
     * The server of a test class, on the port its annotation asks for.
     * @param testClass the test class, or {@code null}
     * @return the running server
     * @throws IllegalArgumentException if the annotation's {@code port} is neither a port nor a range
     */
    static TestRedis server(@Nullable Class<?> testClass) {
        String port = testClass != null
                ? findAnnotation(testClass).map(DistlockTestRedis::port).orElse("")
                : "";
        // Parsed here first, so that a bad value names the test class that declared it.
        PortRange.parse(port, "@DistlockTestRedis on " + (testClass != null ? testClass.getName() : "the test class"));
        return TestRedis.shared(port);
    }

    // @Nested classes inherit the annotation from their enclosing class.
    static java.util.Optional<DistlockTestRedis> findAnnotation(Class<?> type) {
        for (Class<?> current = type; current != null; current = current.getEnclosingClass()) {
            java.util.Optional<DistlockTestRedis> found =
                    AnnotationSupport.findAnnotation(current, DistlockTestRedis.class);
            if (found.isPresent()) {
                return found;
            }
        }
        return java.util.Optional.empty();
    }
}
