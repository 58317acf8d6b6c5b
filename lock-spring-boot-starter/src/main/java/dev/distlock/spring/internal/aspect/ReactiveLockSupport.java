package dev.distlock.spring.internal.aspect;

import dev.distlock.core.RedisLock;
import dev.distlock.spring.LeaseLostPolicy;
import dev.distlock.spring.LockAcquisitionException;
import dev.distlock.spring.LockContext;
import dev.distlock.spring.LockLeaseExpiredException;
import dev.distlock.spring.OnFailure;
import dev.distlock.spring.internal.hold.CurrentLockContext;
import dev.distlock.spring.internal.hold.Hold;
import dev.distlock.spring.internal.hold.LockExecutor;
import dev.distlock.spring.internal.hold.LockRequest;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.CoroutinesUtils;
import org.springframework.core.ReactiveAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Locks around methods whose result is a publisher: Reactor {@code Mono} and {@code Flux}, Kotlin
 * {@code suspend} functions (which Spring AOP runs as a {@code Mono}) and any type of Spring's
 * {@code ReactiveAdapterRegistry}, such as Kotlin's {@code Flow}. The lock is acquired on
 * subscription and released when the sequence completes, fails or is cancelled, both through the
 * lock client's non-blocking API: no thread waits for the lock, and no thread blocks on Redis.
 * Present only when Reactor is on the classpath.
 */
public final class ReactiveLockSupport {

    Object invoke(
            MethodInvocation invocation,
            LockMethod lockMethod,
            LockRequest request,
            LockExecutor executor,
            Object target,
            Object[] args) {
        Flux<Object> flux = Flux.usingWhen(
                acquire(request, executor),
                hold -> hold.isPresent()
                        ? run(invocation, lockMethod, hold.get(), executor)
                        : failure(lockMethod, request, target, args),
                hold -> release(hold, executor),
                (hold, error) -> release(hold, executor),
                hold -> release(hold, executor));
        ReactiveAdapter adapter = lockMethod.adapter();
        boolean single =
                switch (lockMethod.kind()) {
                    case MONO, SUSPEND -> true;
                    case ADAPTED -> adapter != null && !adapter.isMultiValue();
                    default -> false;
                };
        // Not Mono.from(flux): it cancels the source at the first value, which would skip the
        // lease check that ends the sequence and deliver the value of a method whose lease ran out.
        Publisher<Object> result = single ? flux.singleOrEmpty() : flux;
        return adapter != null ? adapter.fromPublisher(result) : result;
    }

    /**
     * Starts the acquisition on subscription, without blocking. A subscriber that cancels while
     * the acquisition waits cancels it in the client; a hold granted as the cancel raced never
     * reaches the subscriber, so it is released here: otherwise nobody would, and the watchdog would
     * keep the lock forever.
     */
    private static Mono<Optional<Hold>> acquire(LockRequest request, LockExecutor executor) {
        return Mono.create(sink -> {
            CompletableFuture<@Nullable Hold> pending;
            try {
                // Started here, on the subscriber's thread: the acquisition's spans keep its parent.
                pending = executor.tryAcquireAsync(request, RedisLock.newOwnerId());
            } catch (Throwable ex) {
                sink.error(ex);
                return;
            }
            AtomicReference<@Nullable Hold> unclaimed = new AtomicReference<>();
            AtomicBoolean cancelled = new AtomicBoolean();
            sink.onCancel(() -> {
                cancelled.set(true);
                pending.cancel(false);
                releaseUnclaimed(unclaimed, executor);
            });
            pending.whenComplete((hold, error) -> {
                if (error != null) {
                    if (!(error instanceof CancellationException)) {
                        sink.error(error);
                    }
                    return;
                }
                if (hold == null) {
                    sink.success(Optional.empty());
                    return;
                }
                unclaimed.set(hold);
                if (cancelled.get()) {
                    releaseUnclaimed(unclaimed, executor);
                    return;
                }
                sink.success(Optional.of(hold));
                // Delivered: from here on usingWhen releases it. A cancel that raced the delivery
                // finds it still unclaimed and releases it, since the value was then dropped.
                unclaimed.compareAndSet(hold, null);
            });
        });
    }

    private static void releaseUnclaimed(AtomicReference<@Nullable Hold> unclaimed, LockExecutor executor) {
        Hold hold = unclaimed.getAndSet(null);
        if (hold != null) {
            executor.releaseAsync(hold);
        }
    }

    private static Publisher<Object> run(
            MethodInvocation invocation, LockMethod lockMethod, Hold hold, LockExecutor executor) {
        Sinks.Empty<Void> lost = Sinks.empty();
        hold.onLeaseLost(() -> lost.tryEmitEmpty());
        Publisher<Object> source;
        // Current while the method assembles its publisher; a suspend function's body captures it
        // here too, when Reactor propagates thread-locals (Spring's CoroutinesUtils).
        CurrentLockContext.Frame previous =
                CurrentLockContext.enter(hold.name(), hold.type(), hold.fencingToken(), hold::isHeld);
        LockContext context = LockContext.current();
        try {
            source = toPublisher(lockMethod, proceed(invocation));
        } catch (Throwable ex) {
            return Flux.error(ex);
        } finally {
            CurrentLockContext.restore(previous);
        }
        if (source == null) {
            return Flux.empty();
        }
        return Flux.from(source)
                .takeUntilOther(lost.asMono())
                .concatWith(
                        Mono.defer(() -> executor.isLeaseLost(hold) && executor.leaseLostPolicy() != LeaseLostPolicy.LOG
                                ? Mono.error(new LockLeaseExpiredException(
                                        hold.name(), hold.request().description()))
                                : Mono.empty()))
                // Operators of the method's chain may run on any thread: ReactorLockContext.current()
                // reads this, and context-propagation restores LockContext.current() from it.
                .contextWrite(ctx -> ctx.put(LockContext.class, context));
    }

    private static @Nullable Object proceed(MethodInvocation invocation) throws Throwable {
        // A publisher may be subscribed more than once: each subscription runs its own invocation.
        MethodInvocation call = invocation instanceof ProxyMethodInvocation proxy ? proxy.invocableClone() : invocation;
        return call.proceed();
    }

    @SuppressWarnings("unchecked")
    private static @Nullable Publisher<Object> toPublisher(LockMethod lockMethod, @Nullable Object result) {
        if (result == null) {
            return null;
        }
        ReactiveAdapter adapter = lockMethod.adapter();
        return (Publisher<Object>) (adapter != null ? adapter.toPublisher(result) : result);
    }

    private static Publisher<Object> failure(LockMethod lockMethod, LockRequest request, Object target, Object[] args) {
        OnFailure policy = lockMethod.annotation().onFailure();
        if (policy == OnFailure.THROW) {
            return Flux.error(new LockAcquisitionException(request.displayName(), request.waitTime(), null));
        }
        if (policy == OnFailure.SKIP) {
            return Flux.empty();
        }
        try {
            Object result = lockMethod.kind() == LockMethod.Kind.SUSPEND
                    ? CoroutinesUtils.invokeSuspendingFunction(lockMethod.fallback(), target, args)
                    : LockFailures.invokeFallback(lockMethod, target, args);
            Publisher<Object> source = toPublisher(lockMethod, result);
            return source != null ? source : Flux.empty();
        } catch (Throwable ex) {
            return Flux.error(ex);
        }
    }

    private static Mono<Void> release(Optional<Hold> hold, LockExecutor executor) {
        return hold.map(h ->
                        Mono.fromCompletionStage(() -> executor.releaseAsync(h)).then())
                .orElse(Mono.empty());
    }
}
