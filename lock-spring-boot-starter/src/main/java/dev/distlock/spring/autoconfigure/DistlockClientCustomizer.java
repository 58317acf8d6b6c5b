package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClientOptions;

/**
 * Callback to adjust the {@link LockClientOptions} of the auto-configured
 * {@link dev.distlock.core.LockClient} before it is built, and of each red-lock node's client
 * ({@code distlock.redlock.nodes}, whose URI is set after the customizers run). Beans of this type
 * run in order.
 */
@FunctionalInterface
public interface DistlockClientCustomizer {

    /**
     * Adjusts the builder.
     * @param builder options builder, already filled from {@code distlock.*}
     */
    void customize(LockClientOptions.Builder builder);
}
