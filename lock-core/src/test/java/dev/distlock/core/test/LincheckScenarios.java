package dev.distlock.core.test;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;

/**
 * Fixed scenarios for the model-checking tests: the races random scenarios seldom pair, pinned so
 * every run checks them.
 */
public final class LincheckScenarios {

    private LincheckScenarios() {}

    /**
     * An operation of a model-checking test, by its name.
     * @param test the test class that declares the operation
     * @param operation the public method's name, unique among the class's methods of that arity
     * @param arguments its arguments
     * @return the actor that calls it
     */
    public static Actor actor(Class<?> test, String operation, Object... arguments) {
        Method method = Arrays.stream(test.getMethods())
                .filter(candidate ->
                        candidate.getName().equals(operation) && candidate.getParameterCount() == arguments.length)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(test.getSimpleName() + " has no public operation "
                        + operation + " taking " + arguments.length + " argument(s)"));
        return new Actor(method, List.of(arguments));
    }

    /**
     * Runs {@code before} one after another, then {@code first} and {@code second} on two threads at once.
     * @param before the actors that set the state up
     * @param first the first thread's actor
     * @param second the second thread's actor
     * @return the scenario
     */
    public static ExecutionScenario race(List<Actor> before, Actor first, Actor second) {
        return new ExecutionScenario(before, List.of(List.of(first), List.of(second)), List.of(), null);
    }
}
