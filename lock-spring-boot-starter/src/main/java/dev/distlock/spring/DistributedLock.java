package dev.distlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated bean method while holding a Redis lock.
 *
 * <p>The lock name is {@link #name()} (default {@code ClassName.methodName}), followed by
 * {@code ':'} and the value of the {@link #key()} expression when one is given. When the key yields a
 * collection or an array, every element is locked, all or nothing, as one multi lock.
 *
 * <p>Expressions are SpEL and see the method's parameters by name ({@code #order.id}, which needs
 * {@code -parameters}) and by position ({@code #p0}, {@code #a0}), {@code #root.method},
 * {@code #root.target}, {@code #root.args}, beans ({@code @clock}) and property placeholders
 * ({@code ${app.region}}). They are parsed and checked when the bean is created, so a mistake fails
 * startup with a message naming the method and the expression.
 *
 * <p>Methods returning {@code CompletionStage}/{@code CompletableFuture} hold the lock until the
 * future completes; methods returning a Reactor {@code Mono} or {@code Flux} acquire it on
 * subscription and release it on termination or cancellation. By default the lock is taken before
 * a {@code @Transactional} method's transaction begins and released after it ends.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface DistributedLock {

    /**
     * Lock name; {@code ${...}} placeholders are resolved. Defaults to {@code ClassName.methodName}.
     * Also names the lock in metrics, where the key is never used.
     * @return the lock name
     */
    String name() default "";

    /**
     * SpEL expression whose value is appended to the name. A collection or an array locks every
     * element. Empty for a lock per method.
     * @return the key expression
     */
    String key() default "";

    /**
     * SpEL condition; the method runs without a lock when it is {@code false}. Empty means always lock.
     * @return the condition expression
     */
    String condition() default "";

    /**
     * Kind of lock.
     * @return the lock type
     */
    LockType type() default LockType.REENTRANT;

    /**
     * How long to wait for the lock: {@code "5s"}, {@code "500ms"}, {@code "PT1M"}, {@code "0"}
     * to try once, {@code "-1"} to wait as long as it takes; empty for {@code distlock.defaults.wait-time}.
     * @return the wait time
     */
    String waitTime() default "";

    /**
     * Lease of the hold: a duration as for {@link #waitTime()}, {@code "-1"} for a watchdog-renewed
     * lease; empty for {@code distlock.defaults.lease-time}.
     * @return the lease time
     */
    String leaseTime() default "";

    /**
     * What to do when the lock cannot be acquired in time.
     * @return the failure policy
     */
    OnFailure onFailure() default OnFailure.THROW;

    /**
     * Name of a method on the same bean, with the same parameters and a compatible return type,
     * called instead when {@link #onFailure()} is {@link OnFailure#FALLBACK}.
     * @return the fallback method name
     */
    String fallback() default "";

    /**
     * Shortest time the lock is held, counted from its acquisition, as for {@link #waitTime()}
     * ({@code "30s"}); empty for none. When the method ends sooner, the lock is released only when
     * this time is up, so that a fast {@code @Scheduled} job does not run again on another instance
     * whose clock or schedule is slightly behind (ShedLock's {@code lockAtLeastFor}). The method
     * returns at once; the release is deferred, not slept.
     * @return the minimum hold time
     */
    String minHoldTime() default "";

    /**
     * Whether to take a fenced lock, whose fencing token {@link LockContext#fencingToken()} returns.
     * @return whether the lock is fenced
     */
    boolean fenced() default false;
}
