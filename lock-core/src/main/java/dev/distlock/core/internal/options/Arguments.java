package dev.distlock.core.internal.options;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/** Checks of option arguments; each message names the argument as the caller spelled it. */
final class Arguments {

    private Arguments() {}

    static String requireText(String value, String name) {
        Objects.requireNonNull(value, () -> "'" + name + "' must not be null");
        if (value.isBlank()) {
            throw new IllegalArgumentException("'" + name + "' must not be blank");
        }
        return value;
    }

    static Duration requirePositive(Duration value, String name) {
        Objects.requireNonNull(value, () -> "'" + name + "' must not be null");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException("'" + name + "' must be positive, was " + value);
        }
        return value;
    }

    static List<String> requireNodes(String[] nodes, String name) {
        Objects.requireNonNull(nodes, () -> "'" + name + "' must not be null");
        if (nodes.length == 0) {
            throw new IllegalArgumentException("'" + name + "' must name at least one node");
        }
        for (String node : nodes) {
            requireText(node, name + " element");
        }
        return List.of(nodes);
    }
}
