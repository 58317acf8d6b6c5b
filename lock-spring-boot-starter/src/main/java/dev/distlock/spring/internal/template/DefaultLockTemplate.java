package dev.distlock.spring.internal.template;

import dev.distlock.core.LockException;
import dev.distlock.spring.LockAcquisitionException;
import dev.distlock.spring.LockOptions;
import dev.distlock.spring.LockResult;
import dev.distlock.spring.LockTemplate;
import dev.distlock.spring.LockType;
import dev.distlock.spring.internal.config.LockNameSettings;
import dev.distlock.spring.internal.hold.CurrentLockContext;
import dev.distlock.spring.internal.hold.Hold;
import dev.distlock.spring.internal.hold.LockExecutor;
import dev.distlock.spring.internal.hold.LockRequest;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * {@link LockTemplate} over a {@link LockExecutor}; holds belong to the calling thread.
 */
public final class DefaultLockTemplate implements LockTemplate {

    private final LockExecutor executor;
    private final Duration defaultWait;
    private final Duration defaultLease;
    private final LockNameSettings lockNames;

    /**
     * Creates a template.
     * @param executor acquires and releases
     * @param defaultWait wait when the options give none
     * @param defaultLease lease when the options give none
     */
    public DefaultLockTemplate(LockExecutor executor, Duration defaultWait, Duration defaultLease) {
        this(executor, defaultWait, defaultLease, LockNameSettings.NONE);
    }

    /**
     * Creates a template.
     * @param executor acquires and releases
     * @param defaultWait wait when the options give none
     * @param defaultLease lease when the options give none
     * @param lockNames {@code distlock.locks.<name>.*}, which win over the options
     */
    public DefaultLockTemplate(
            LockExecutor executor, Duration defaultWait, Duration defaultLease, LockNameSettings lockNames) {
        this.executor = executor;
        this.defaultWait = defaultWait;
        this.defaultLease = defaultLease;
        this.lockNames = lockNames;
    }

    @Override
    public <T> @Nullable T execute(String key, LockOptions options, Supplier<T> callback) {
        return execute(key, key, options, callback);
    }

    @Override
    public <T> @Nullable T execute(String name, String key, LockOptions options, Supplier<T> callback) {
        Objects.requireNonNull(options, "'options' must not be null");
        LockRequest request = request(
                name,
                key,
                options.type(),
                options.waitTime() != null ? options.waitTime() : defaultWait,
                options.leaseTime() != null ? options.leaseTime() : defaultLease);
        LockResult<T> result = run(request, callback);
        if (!result.wasExecuted()) {
            throw new LockAcquisitionException(key, request.waitTime(), null);
        }
        return result.getValue();
    }

    @Override
    public <T> LockResult<T> tryExecute(String key, Duration waitTime, Supplier<T> callback) {
        return tryExecute(key, key, waitTime, callback);
    }

    @Override
    public <T> LockResult<T> tryExecute(String name, String key, Duration waitTime, Supplier<T> callback) {
        Objects.requireNonNull(waitTime, "'waitTime' must not be null");
        return run(request(name, key, LockType.REENTRANT, waitTime, defaultLease), callback);
    }

    @Override
    public <T> LockResult<T> tryExecute(String key, LockOptions options, Supplier<T> callback) {
        return tryExecute(key, key, options, callback);
    }

    @Override
    public <T> LockResult<T> tryExecute(String name, String key, LockOptions options, Supplier<T> callback) {
        Objects.requireNonNull(options, "'options' must not be null");
        return run(
                request(
                        name,
                        key,
                        options.type(),
                        options.waitTime() != null ? options.waitTime() : defaultWait,
                        options.leaseTime() != null ? options.leaseTime() : defaultLease),
                callback);
    }

    @Override
    public <T> @Nullable T withPermit(
            String semaphore,
            int permits,
            @Nullable Duration waitTime,
            @Nullable Duration leaseTime,
            Supplier<T> callback) {
        LockRequest request = permitRequest(semaphore, permits, waitTime, leaseTime);
        LockResult<T> result = run(request, callback);
        if (!result.wasExecuted()) {
            throw new LockAcquisitionException(semaphore, request.waitTime(), null);
        }
        return result.getValue();
    }

    @Override
    public <T> LockResult<T> tryWithPermit(
            String semaphore,
            int permits,
            @Nullable Duration waitTime,
            @Nullable Duration leaseTime,
            Supplier<T> callback) {
        return run(permitRequest(semaphore, permits, waitTime, leaseTime), callback);
    }

    private LockRequest permitRequest(
            String semaphore, int permits, @Nullable Duration waitTime, @Nullable Duration leaseTime) {
        if (permits < 1) {
            throw new IllegalArgumentException("'permits' must be at least 1; was " + permits);
        }
        // The lease rule of every lock (-1 is the watchdog, any other negative or zero fails), checked once.
        LockOptions checked = new LockOptions(LockType.REENTRANT, waitTime, leaseTime);
        LockRequest request = request(
                semaphore,
                semaphore,
                LockType.SEMAPHORE,
                checked.waitTime() != null ? checked.waitTime() : defaultWait,
                checked.leaseTime() != null ? checked.leaseTime() : defaultLease);
        return new LockRequest(
                request.template(),
                request.names(),
                request.type(),
                false,
                request.waitTime(),
                request.leaseTime(),
                "LockTemplate callback for semaphore '" + semaphore + "'",
                Duration.ZERO,
                permits);
    }

    private LockRequest request(String name, String key, LockType type, Duration wait, Duration lease) {
        Objects.requireNonNull(key, "'key' must not be null");
        Objects.requireNonNull(name, "'name' must not be null");
        if (key.isBlank()) {
            throw new IllegalArgumentException("'key' must not be blank");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("'name' must not be blank");
        }
        String description = "LockTemplate callback for '" + key + "'";
        LockNameSettings.Applied perName = lockNames.apply(name, type, false, wait, lease, description);
        return new LockRequest(
                name, List.of(key), perName.type(), false, perName.waitTime(), perName.leaseTime(), description);
    }

    private <T> LockResult<T> run(LockRequest request, Supplier<T> callback) {
        Objects.requireNonNull(callback, "'callback' must not be null");
        Thread thread = Thread.currentThread();
        Hold hold;
        try {
            hold = executor.tryAcquire(request, thread.getId(), thread);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockAcquisitionException(request.displayName(), request.waitTime(), ex);
        } catch (LockException ex) {
            throw ex;
        }
        if (hold == null) {
            return LockResult.notAcquired();
        }
        CurrentLockContext.Frame previous =
                CurrentLockContext.enter(hold.name(), hold.type(), hold.fencingToken(), hold::isHeld);
        T value;
        try {
            value = callback.get();
        } finally {
            CurrentLockContext.restore(previous);
            executor.release(hold);
        }
        executor.checkLeaseLost(hold);
        return LockResult.executed(value);
    }
}
