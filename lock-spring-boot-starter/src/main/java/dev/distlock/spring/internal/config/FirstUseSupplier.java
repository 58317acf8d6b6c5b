package dev.distlock.spring.internal.config;

import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Resolves a value on first use and keeps it, without a lock. Callers include Lettuce and Reactor
 * threads that must never park, so two racing first calls may both resolve the value (which must
 * be harmless) instead of one waiting for the other, as it would with Spring's
 * {@code SingletonSupplier}.
 *
 * @param <T> type of the value
 */
public final class FirstUseSupplier<T> implements Supplier<T> {

    private final Supplier<T> resolver;

    private volatile @Nullable T value;

    private FirstUseSupplier(Supplier<T> resolver) {
        this.resolver = resolver;
    }

    /**
     * Creates a supplier that calls {@code resolver} until it has a value.
     * @param resolver resolves the value; must not return {@code null}
     * @param <T> type of the value
     * @return the supplier
     */
    public static <T> FirstUseSupplier<T> of(Supplier<T> resolver) {
        return new FirstUseSupplier<>(Objects.requireNonNull(resolver, "'resolver' must not be null"));
    }

    @Override
    public T get() {
        T resolved = value;
        if (resolved == null) {
            resolved = Objects.requireNonNull(resolver.get(), "'resolver' returned null");
            value = resolved;
        }
        return resolved;
    }
}
