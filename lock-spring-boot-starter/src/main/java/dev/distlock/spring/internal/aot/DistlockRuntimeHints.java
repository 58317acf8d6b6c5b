package dev.distlock.spring.internal.aot;

import dev.distlock.spring.internal.actuator.DistlockEndpointReplies;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ClassUtils;

/**
 * Native-image hints of Distlock: the Lua scripts lock-core reads from the class path, and the
 * response types of the {@code distlock} Actuator endpoint, which are bound to JSON. Registered
 * through {@code META-INF/spring/aot.factories}.
 */
public final class DistlockRuntimeHints implements RuntimeHintsRegistrar {

    /** Directory of lock-core's scripts; fragments are in its {@code fragments} subdirectory. */
    public static final String SCRIPTS = "dev/distlock/core/scripts/";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(SCRIPTS + "*.lua");
        hints.resources().registerPattern(SCRIPTS + "fragments/*.lua");
        if (ClassUtils.isPresent("org.springframework.boot.actuate.endpoint.OperationResponseBody", classLoader)) {
            EndpointTypes.register(hints);
        }
    }

    /** Kept apart so that the endpoint's types load only with Actuator present. */
    private static final class EndpointTypes {

        static void register(RuntimeHints hints) {
            new BindingReflectionHintsRegistrar()
                    .registerReflectionHints(
                            hints.reflection(),
                            DistlockEndpointReplies.LocksReport.class,
                            DistlockEndpointReplies.LockState.class,
                            DistlockEndpointReplies.ForceUnlockResult.class);
        }
    }
}
