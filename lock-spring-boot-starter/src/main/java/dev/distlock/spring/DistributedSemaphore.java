package dev.distlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated bean method while holding one permit of a Redis semaphore, so that at most
 * {@link #permits()} calls run at once across every instance: {@code @DistributedSemaphore(key =
 * "'partner-api'", permits = 5)}. The semaphore is lock-core's {@link dev.distlock.core.RedisSemaphore}
 * (Redisson's {@code RPermitExpirableSemaphore} layout), so a permit comes back when the method
 * ends or, should the process die, when its lease ends.
 *
 * <p>The semaphore's name, its key expression, condition, wait, lease, failure policy and fallback
 * follow the rules of {@link DistributedLock}'s attributes of the same names: SpEL over the
 * parameters, {@code ${...}} placeholders, {@code distlock.defaults.*} and
 * {@code distlock.locks.<name>.wait-time}/{@code lease-time}, all checked at startup with messages
 * naming the method and the expression. {@code CompletionStage} and reactive methods hold their
 * permit until the work completes. The key must give one value: a collection is refused at call time.
 *
 * <p><b>The permit count.</b> The first call of this instance that uses the semaphore sets its
 * count with {@code trySetPermits(permits)}, which sets it only when Redis holds none. A count
 * already in Redis (set by another instance, a deployment with another {@code permits}, or Redisson)
 * is kept, and a WARN is logged once per semaphore when it differs from {@code permits}; to change
 * the count, delete the semaphore's key (and its {@code :timeout} set) while no permit is taken.
 *
 * <p>Permits are not reentrant: a nested call on the same semaphore takes a second permit. A method
 * may carry {@code @DistributedLock} or {@code @DistributedSemaphore}, not both: startup fails.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedSemaphore {

    /**
     * Semaphore name; {@code ${...}} placeholders are resolved. Defaults to {@code ClassName.methodName}.
     * Also names the semaphore in metrics, where the key is never used.
     * @return the semaphore name
     */
    String name() default "";

    /**
     * SpEL expression whose value is appended to the name as {@code name:value}; it must give one
     * value. Empty for one semaphore per method.
     * @return the key expression
     */
    String key() default "";

    /**
     * Number of permits, at least 1, set in Redis when the semaphore has none yet.
     * @return the permit count
     */
    int permits();

    /**
     * SpEL condition; the method runs without a permit when it is {@code false}. Empty means always.
     * @return the condition expression
     */
    String condition() default "";

    /**
     * How long to wait for a permit, as {@link DistributedLock#waitTime()}; empty for
     * {@code distlock.defaults.wait-time}.
     * @return the wait time
     */
    String waitTime() default "";

    /**
     * Lease of the permit, as {@link DistributedLock#leaseTime()}: {@code "-1"} for a
     * watchdog-renewed permit; empty for {@code distlock.defaults.lease-time}.
     * @return the lease time
     */
    String leaseTime() default "";

    /**
     * What to do when no permit comes in time, as for {@link DistributedLock#onFailure()}.
     * @return the failure policy
     */
    OnFailure onFailure() default OnFailure.THROW;

    /**
     * Name of a method on the same bean, called instead when {@link #onFailure()} is
     * {@link OnFailure#FALLBACK}, as for {@link DistributedLock#fallback()}.
     * @return the fallback method name
     */
    String fallback() default "";
}
