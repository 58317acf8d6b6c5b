package dev.distlock.spring.internal.aspect;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockType;
import java.lang.reflect.Method;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ReactiveAdapter;
import org.springframework.expression.Expression;

/**
 * A {@link DistributedLock} method, parsed and checked once when its bean is proxied.
 *
 * @param method the annotated method (most specific)
 * @param description {@code ClassName.methodName}, for messages
 * @param annotation the annotation; for a {@code @DistributedSemaphore} method, its attributes as a
 *        {@code @DistributedLock}, so that one set of rules reads both
 * @param template lock name with placeholders resolved
 * @param key parsed key expression, or {@code null}
 * @param keySource key expression text
 * @param condition parsed condition, or {@code null}
 * @param waitTime wait time
 * @param leaseTime lease time
 * @param fallback fallback method, or {@code null}
 * @param kind how the return type is handled
 * @param minHoldTime shortest hold, zero for none
 * @param adapter converts a reactive return type other than Reactor's to and from a
 *        {@code Publisher} (kind {@link Kind#ADAPTED}), or {@code null}
 * @param type lock type: the annotation's, or {@code distlock.locks.<name>.type}; {@code SEMAPHORE}
 *        for a {@code @DistributedSemaphore} method
 * @param permits permit count of a {@code @DistributedSemaphore} method, 0 for a lock
 */
record LockMethod(
        Method method,
        String description,
        DistributedLock annotation,
        String template,
        @Nullable Expression key,
        String keySource,
        @Nullable Expression condition,
        Duration waitTime,
        Duration leaseTime,
        @Nullable Method fallback,
        Kind kind,
        Duration minHoldTime,
        @Nullable ReactiveAdapter adapter,
        LockType type,
        int permits) {

    /** @return the annotation as messages name it: {@code @DistributedLock} or {@code @DistributedSemaphore} */
    String annotationName() {
        return type == LockType.SEMAPHORE ? "@DistributedSemaphore" : "@DistributedLock";
    }

    /** How a method's result is handled. */
    public enum Kind {
        /** Plain value: the lock is held while the method runs. */
        SYNC,
        /** {@code CompletionStage}: held until the future completes. */
        COMPLETION_STAGE,
        /** Reactor {@code Mono}. */
        MONO,
        /** Reactor {@code Flux}. */
        FLUX,
        /** Kotlin {@code suspend} function: Spring AOP runs it as a {@code Mono} and awaits what we return. */
        SUSPEND,
        /** Another reactive type ({@code Flow}, RxJava, ...), through Spring's {@code ReactiveAdapterRegistry}. */
        ADAPTED;

        /** @return whether the lock follows a publisher: acquired on subscription, released on termination */
        public boolean isReactive() {
            return this != SYNC && this != COMPLETION_STAGE;
        }
    }
}
