package dev.distlock.spring;

import reactor.core.publisher.Mono;

/** Reads {@link LockContext} from the Reactor context; kept apart so that Reactor stays optional. */
final class ReactorLockContext {

    private ReactorLockContext() {
    }

    static Mono<LockContext> current() {
        return Mono.deferContextual(view -> view.<LockContext>getOrEmpty(LockContext.class)
                .map(Mono::just)
                .orElseGet(() -> Mono.error(new IllegalStateException(
                        "LockContext.currentMono() subscribed outside the chain of a reactive @DistributedLock method"))));
    }
}
