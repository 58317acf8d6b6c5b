package dev.distlock.spring;

import reactor.core.publisher.Mono;

/**
 * Reads the {@link LockContext} of a reactive {@link DistributedLock} method from the Reactor
 * context, whatever thread the operator runs on. Kept apart from {@code LockContext} so that the
 * latter loads without Reactor on the classpath.
 */
public final class ReactorLockContext {

    private ReactorLockContext() {}

    /**
     * Returns, from the Reactor context, the innermost lock held around the reactive chain of a
     * {@code Mono}, {@code Flux}, {@code suspend} or {@code Flow} {@link DistributedLock} method.
     * The context is stored under the key {@code LockContext.class}.
     * @return a {@code Mono} of the context, failing with {@link IllegalStateException} outside such a chain
     */
    public static Mono<LockContext> current() {
        return Mono.deferContextual(
                view -> view.<LockContext>getOrEmpty(LockContext.class)
                        .map(Mono::just)
                        .orElseGet(
                                () -> Mono.error(
                                        new IllegalStateException(
                                                "ReactorLockContext.current() subscribed outside the chain of a reactive @DistributedLock method"))));
    }
}
