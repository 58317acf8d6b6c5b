package dev.distlock.spring;

import java.time.Duration;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs code under a Redis lock, for code that cannot use {@link DistributedLock}. The lock is held
 * by the calling thread and released when the callback returns or throws; calls are reentrant.
 * {@link LockContext#current()} works inside callbacks.
 *
 * <p>{@code key} is the full lock name. It also tags the metrics, so keep the number of distinct
 * keys bounded or prefer the annotation, which tags by its template.
 */
public interface LockTemplate {

    /**
     * Runs the callback under a reentrant lock with the configured wait and lease.
     * @param key lock name
     * @param callback code to run
     * @param <T> result type
     * @return what the callback returned
     * @throws LockAcquisitionException if the lock was not acquired in time
     */
    default <T> @Nullable T execute(String key, Supplier<T> callback) {
        return execute(key, LockOptions.DEFAULTS, callback);
    }

    /**
     * Runs the callback under a lock of the given options.
     * @param key lock name
     * @param options type, wait and lease
     * @param callback code to run
     * @param <T> result type
     * @return what the callback returned
     * @throws LockAcquisitionException if the lock was not acquired in time
     */
    <T> @Nullable T execute(String key, LockOptions options, Supplier<T> callback);

    /**
     * Runs the callback under a reentrant lock with the configured wait and lease.
     * @param key lock name
     * @param callback code to run
     * @throws LockAcquisitionException if the lock was not acquired in time
     */
    default void execute(String key, Runnable callback) {
        execute(key, LockOptions.DEFAULTS, callback);
    }

    /**
     * Runs the callback under a lock of the given options.
     * @param key lock name
     * @param options type, wait and lease
     * @param callback code to run
     * @throws LockAcquisitionException if the lock was not acquired in time
     */
    default void execute(String key, LockOptions options, Runnable callback) {
        execute(key, options, () -> {
            callback.run();
            return null;
        });
    }

    /**
     * Runs the callback if a reentrant lock can be acquired within {@code waitTime}.
     * @param key lock name
     * @param waitTime how long to wait; zero tries once
     * @param callback code to run
     * @param <T> result type
     * @return whether it ran, and its result
     */
    <T> LockResult<T> tryExecute(String key, Duration waitTime, Supplier<T> callback);

    /**
     * Runs the callback if a lock of the given options (type, wait and lease) can be acquired
     * within their wait: a try-lock of every kind ({@code READ}, {@code WRITE}, {@code FAIR}, ...)
     * that reports "not acquired" as a result rather than an exception.
     *
     * <p>The default implementation runs {@link #execute(String, LockOptions, Supplier)} and turns
     * its {@link LockAcquisitionException} into {@link LockResult#notAcquired()}, unless the
     * callback itself threw it; Distlock's own template acquires without throwing.
     * @param key lock name
     * @param options type, wait and lease; a {@code null} wait or lease means the configured one
     * @param callback code to run
     * @param <T> result type
     * @return whether it ran, and its result
     */
    default <T> LockResult<T> tryExecute(String key, LockOptions options, Supplier<T> callback) {
        boolean[] ran = new boolean[1];
        try {
            T value = execute(key, options, () -> {
                ran[0] = true;
                return callback.get();
            });
            return LockResult.executed(value);
        } catch (LockAcquisitionException ex) {
            if (ran[0]) {
                throw ex;
            }
            return LockResult.notAcquired();
        }
    }

    /**
     * Runs the callback if a lock of the given options can be acquired within their wait.
     * @param key lock name
     * @param options type, wait and lease; a {@code null} wait or lease means the configured one
     * @param callback code to run
     * @return whether it ran
     */
    default boolean tryExecute(String key, LockOptions options, Runnable callback) {
        return tryExecute(key, options, () -> {
                    callback.run();
                    return null;
                })
                .wasExecuted();
    }

    /**
     * Runs the callback if a lock of the given options on {@code key} can be acquired within
     * their wait, reporting it in metrics under {@code name}.
     * @param name lock name for metrics
     * @param key lock name in Redis
     * @param options type, wait and lease; a {@code null} wait or lease means the configured one
     * @param callback the work
     * @param <T> result type
     * @return whether it ran, and its result
     */
    default <T> LockResult<T> tryExecute(String name, String key, LockOptions options, Supplier<T> callback) {
        return tryExecute(key, options, callback);
    }

    /**
     * Runs the callback if a reentrant lock can be acquired within {@code waitTime}.
     * @param key lock name
     * @param waitTime how long to wait; zero tries once
     * @param callback code to run
     * @return whether it ran
     */
    default boolean tryExecute(String key, Duration waitTime, Runnable callback) {
        return tryExecute(key, waitTime, () -> {
                    callback.run();
                    return null;
                })
                .wasExecuted();
    }

    /**
     * Runs the callback while holding the lock {@code key}, reporting it in metrics under
     * {@code name}: keys that hold ids (a tenant, an order) then do not create a meter each.
     * @param name lock name for metrics (the {@code name} tag), e.g. {@code "invoice"}
     * @param key lock name in Redis, e.g. {@code "invoice:" + tenantId}
     * @param options wait, lease and type
     * @param callback the work
     * @param <T> result type
     * @return the callback's result
     * @throws LockAcquisitionException if the lock is not acquired within the wait
     */
    default <T> @Nullable T execute(String name, String key, LockOptions options, Supplier<T> callback) {
        return execute(key, options, callback);
    }

    /**
     * Runs the callback while holding the lock {@code key} with default options, reporting it in
     * metrics under {@code name}.
     * @param name lock name for metrics
     * @param key lock name in Redis
     * @param callback the work
     * @param <T> result type
     * @return the callback's result
     * @throws LockAcquisitionException if the lock is not acquired within the wait
     */
    default <T> @Nullable T execute(String name, String key, Supplier<T> callback) {
        return execute(name, key, LockOptions.DEFAULTS, callback);
    }

    /**
     * Runs the callback if the lock {@code key} is acquired within the wait, reporting it in metrics
     * under {@code name}.
     * @param name lock name for metrics
     * @param key lock name in Redis
     * @param waitTime how long to wait
     * @param callback the work
     * @param <T> result type
     * @return whether it ran, and its result
     */
    default <T> LockResult<T> tryExecute(String name, String key, Duration waitTime, Supplier<T> callback) {
        return tryExecute(key, waitTime, callback);
    }

    /**
     * Runs the callback while holding one permit of the semaphore {@code semaphore}, with the
     * configured wait and lease; see {@link #withPermit(String, int, Duration, Duration, Supplier)}.
     * @param semaphore semaphore name (also its metrics name)
     * @param permits permit count, set in Redis when the semaphore has none yet
     * @param callback code to run
     * @param <T> result type
     * @return what the callback returned
     * @throws LockAcquisitionException if no permit came in time
     */
    default <T> @Nullable T withPermit(String semaphore, int permits, Supplier<T> callback) {
        return withPermit(semaphore, permits, null, null, callback);
    }

    /**
     * Runs the callback while holding one permit of the semaphore {@code semaphore}, so that at most
     * {@code permits} callbacks (and {@link DistributedSemaphore} methods of that name) run at once
     * across instances; the permit is given back when the callback returns or throws. The count is
     * set on this instance's first use of the semaphore and a count already in Redis is kept (see
     * {@link DistributedSemaphore}). Permits are not reentrant: a nested call takes a second one.
     *
     * <p>The default implementation throws {@link UnsupportedOperationException}; Distlock's own
     * template supports it.
     * @param semaphore semaphore name (also its metrics name)
     * @param permits permit count, at least 1
     * @param waitTime how long to wait, {@code null} for the configured one; zero tries once, negative waits as long as it takes
     * @param leaseTime lease of the permit, {@code null} for the configured one; {@code Duration.ofMillis(-1)} for the watchdog
     * @param callback code to run
     * @param <T> result type
     * @return what the callback returned
     * @throws LockAcquisitionException if no permit came in time
     */
    default <T> @Nullable T withPermit(
            String semaphore,
            int permits,
            @Nullable Duration waitTime,
            @Nullable Duration leaseTime,
            Supplier<T> callback) {
        LockResult<T> result = tryWithPermit(semaphore, permits, waitTime, leaseTime, callback);
        if (!result.wasExecuted()) {
            throw new LockAcquisitionException(semaphore, waitTime != null ? waitTime : Duration.ZERO, null);
        }
        return result.getValue();
    }

    /**
     * Runs the callback if a permit of the semaphore comes within the wait, as
     * {@link #withPermit(String, int, Duration, Duration, Supplier)}, reporting "no permit" as a
     * result rather than an exception.
     * @param semaphore semaphore name (also its metrics name)
     * @param permits permit count, at least 1
     * @param waitTime how long to wait, {@code null} for the configured one
     * @param leaseTime lease of the permit, {@code null} for the configured one
     * @param callback code to run
     * @param <T> result type
     * @return whether it ran, and its result
     */
    default <T> LockResult<T> tryWithPermit(
            String semaphore,
            int permits,
            @Nullable Duration waitTime,
            @Nullable Duration leaseTime,
            Supplier<T> callback) {
        throw new UnsupportedOperationException(getClass().getName() + " does not take semaphore permits");
    }
}
