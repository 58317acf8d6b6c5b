package dev.distlock.spring.internal;

import java.lang.reflect.Method;
import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.Expression;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockType;

/**
 * A {@link DistributedLock} method, parsed and checked once when its bean is proxied.
 *
 * @param method the annotated method (most specific)
 * @param description {@code ClassName.methodName}, for messages
 * @param annotation the annotation
 * @param template lock name with placeholders resolved
 * @param key parsed key expression, or {@code null}
 * @param keySource key expression text
 * @param condition parsed condition, or {@code null}
 * @param waitTime wait time
 * @param leaseTime lease time
 * @param fallback fallback method, or {@code null}
 * @param kind how the return type is handled
 * @param minHoldTime shortest hold, zero for none
 */
public record LockMethod(Method method, String description, DistributedLock annotation, String template,
        @Nullable Expression key, String keySource, @Nullable Expression condition, Duration waitTime,
        Duration leaseTime, @Nullable Method fallback, Kind kind,
        Duration minHoldTime) {

    /** How a method's result is handled. */
    public enum Kind {
        /** Plain value: the lock is held while the method runs. */
        SYNC,
        /** {@code CompletionStage}: held until the future completes. */
        COMPLETION_STAGE,
        /** Reactor {@code Mono}. */
        MONO,
        /** Reactor {@code Flux}. */
        FLUX
    }

    /** @return lock type */
    public LockType type() {
        return annotation.type();
    }
}
