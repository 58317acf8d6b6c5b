package dev.distlock.spring.internal;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;

import dev.distlock.core.RedisLock;
import dev.distlock.spring.LockAcquisitionException;
import dev.distlock.spring.LockContext;
import dev.distlock.spring.LockLeaseExpiredException;
import dev.distlock.spring.LeaseLostPolicy;
import dev.distlock.spring.OnFailure;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * Locks around Reactor {@code Mono} and {@code Flux} methods: acquired on subscription (on the
 * bounded-elastic scheduler, since acquisition blocks), released on completion, error or cancel.
 * Present only when Reactor is on the classpath.
 */
public final class ReactiveLockSupport {

    Object invoke(MethodInvocation invocation, LockMethod lockMethod, LockRequest request, LockExecutor executor,
            Object target, Object[] args) {
        Flux<Object> flux = Flux.usingWhen(
                acquire(request, executor),
                hold -> hold.isPresent() ? run(invocation, hold.get(), executor)
                        : failure(lockMethod, request, target, args),
                hold -> release(hold, executor),
                (hold, error) -> release(hold, executor),
                hold -> release(hold, executor));
        // Not Mono.from(flux): it cancels the source at the first value, which would skip the
        // lease check that ends the sequence and deliver the value of a method whose lease ran out.
        return lockMethod.kind() == LockMethod.Kind.MONO ? flux.singleOrEmpty() : flux;
    }

    /**
     * Acquires on the bounded-elastic scheduler (acquisition blocks). A subscriber that cancels
     * while the acquisition is still waiting never receives the hold, so the hold is released here
     * instead: otherwise nobody would, and the watchdog would keep the lock forever.
     */
    private static Mono<Optional<LockExecutor.Hold>> acquire(LockRequest request, LockExecutor executor) {
        return Mono.create(sink -> {
            AtomicReference<LockExecutor.Hold> unclaimed = new AtomicReference<>();
            AtomicBoolean cancelled = new AtomicBoolean();
            sink.onCancel(() -> {
                cancelled.set(true);
                releaseUnclaimed(unclaimed, executor);
            });
            // Subscribed here, on the subscriber's thread: the acquisition's spans keep its parent.
            Disposable task = Schedulers.boundedElastic().schedule(executor.propagating(() -> {
                LockExecutor.Hold hold;
                try {
                    hold = executor.tryAcquire(request, RedisLock.newOwnerId(), null);
                }
                catch (Throwable ex) {
                    sink.error(ex);
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
            }));
            sink.onDispose(() -> {
                if (cancelled.get()) {
                    task.dispose();
                }
            });
        });
    }

    private static void releaseUnclaimed(AtomicReference<LockExecutor.Hold> unclaimed, LockExecutor executor) {
        LockExecutor.Hold hold = unclaimed.getAndSet(null);
        if (hold != null) {
            executor.release(hold);
        }
    }

    private static Publisher<Object> run(MethodInvocation invocation, LockExecutor.Hold hold, LockExecutor executor) {
        Sinks.Empty<Void> lost = Sinks.empty();
        hold.onLeaseLost(() -> lost.tryEmitEmpty());
        Publisher<Object> source;
        LockContext previous = LockContext.enter(hold.name(), hold.type(), hold.fencingToken(), hold::isHeld);
        LockContext context = LockContext.current();
        try {
            source = proceed(invocation);
        }
        catch (Throwable ex) {
            return Flux.error(ex);
        }
        finally {
            LockContext.restore(previous);
        }
        if (source == null) {
            return Flux.empty();
        }
        return Flux.from(source)
                .takeUntilOther(lost.asMono())
                .concatWith(Mono.defer(() -> executor.isLeaseLost(hold) && executor.holds().policy() != LeaseLostPolicy.LOG
                        ? Mono.error(new LockLeaseExpiredException(hold.name(), hold.request.description()))
                        : Mono.empty()))
                // Operators of the method's chain may run on any thread: LockContext.currentMono() reads this.
                .contextWrite(ctx -> ctx.put(LockContext.class, context));
    }

    @SuppressWarnings("unchecked")
    private static Publisher<Object> proceed(MethodInvocation invocation) throws Throwable {
        // A publisher may be subscribed more than once: each subscription runs its own invocation.
        MethodInvocation call = invocation instanceof ProxyMethodInvocation proxy ? proxy.invocableClone() : invocation;
        return (Publisher<Object>) call.proceed();
    }

    @SuppressWarnings("unchecked")
    private static Publisher<Object> failure(LockMethod lockMethod, LockRequest request, Object target, Object[] args) {
        OnFailure policy = lockMethod.annotation().onFailure();
        if (policy == OnFailure.THROW) {
            return Flux.error(new LockAcquisitionException(request.displayName(), request.waitTime(), null));
        }
        if (policy == OnFailure.SKIP) {
            return Flux.empty();
        }
        try {
            Object result = DistributedLockInterceptor.invokeFallback(lockMethod, target, args);
            return result != null ? (Publisher<Object>) result : Flux.empty();
        }
        catch (Throwable ex) {
            return Flux.error(ex);
        }
    }

    private static Mono<Void> release(Optional<LockExecutor.Hold> hold, LockExecutor executor) {
        return hold.map(h -> Mono.<Void>fromRunnable(() -> executor.release(h))).orElse(Mono.empty());
    }
}
