package dev.distlock.core.internal.kind;

import dev.distlock.core.LockException;
import dev.distlock.core.RedisSemaphore;
import dev.distlock.core.internal.engine.Arguments;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.layout.RedissonLayout;
import dev.distlock.core.internal.script.SemaphoreAvailable;
import dev.distlock.core.internal.script.SemaphoreRelease;
import dev.distlock.core.internal.script.SemaphoreSetPermits;
import dev.distlock.core.internal.script.SemaphoreTaken;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A semaphore in Redisson's {@code RPermitExpirableSemaphore} layout; see {@link RedisSemaphore}.
 * Acquisitions are {@link SemaphoreAcquisition}s; watchdog permits are renewed by the client's
 * {@link WatchdogPermits}.
 */
public final class DefaultRedisSemaphore implements RedisSemaphore {

    /** Redisson's permit ids are hex text of their bytes; so are ours. */
    private static final Pattern PERMIT_ID = Pattern.compile("(?:[0-9a-fA-F]{2})+");

    private final LockEngine engine;
    private final WatchdogPermits watchdogPermits;
    private final String name;
    private final String key;
    private final String timeouts;
    private final String channel;

    /**
     * Creates a view of the semaphore; nothing is sent to Redis.
     * @param engine the client's engine
     * @param watchdogPermits the client's watchdog permits
     * @param name the semaphore's name
     */
    public DefaultRedisSemaphore(LockEngine engine, WatchdogPermits watchdogPermits, String name) {
        this.engine = engine;
        this.watchdogPermits = watchdogPermits;
        this.name = Arguments.requireName(name);
        RedissonLayout layout = engine.layout(engine.key(name));
        this.key = layout.key();
        this.timeouts = layout.semaphoreTimeouts();
        this.channel = layout.semaphoreChannel();
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public boolean trySetPermits(int permits) {
        if (permits < 0) {
            throw new IllegalArgumentException("'permits' must not be negative; was " + permits);
        }
        long deadline = engine.replies().deadlineOnceConnected(name, "set the permits of semaphore");
        CompletableFuture<Long> set = engine.calls().call(() -> new SemaphoreSetPermits(
                        key, channel, permits, engine.connector().publishCommand())
                .run(engine.scripts()));
        return engine.replies().await(set, name, "set the permits of semaphore", deadline) == 1;
    }

    @Override
    public CompletionStage<Boolean> trySetPermitsAsync(int permits) {
        if (permits < 0) {
            throw new IllegalArgumentException("'permits' must not be negative; was " + permits);
        }
        engine.calls().ensureOpen(name);
        // Bounded and failed as every asynchronous call is: a LockException naming the semaphore.
        return engine.replies()
                .within(
                        engine.calls().call(() -> new SemaphoreSetPermits(
                                        key,
                                        channel,
                                        permits,
                                        engine.connector().publishCommand())
                                .run(engine.scripts())),
                        name,
                        "set the permits of semaphore",
                        engine.replies().deadline())
                .thenApply(set -> set == 1);
    }

    @Override
    public List<Permit> takenPermits() {
        long deadline = engine.replies().deadlineOnceConnected(name, "list the permits of semaphore");
        // A script, not ZRANGE: ids are stored as bytes (Redisson's layout), which only Lua can turn
        // back into hex text, and the remaining leases are measured on the server's clock.
        List<Object> taken = engine.replies()
                .await(
                        engine.calls().call(() -> new SemaphoreTaken(timeouts).run(engine.scripts())),
                        name,
                        "list the permits of semaphore",
                        deadline);
        List<Permit> permits = new ArrayList<>(taken.size() / 2);
        for (int i = 0; i + 1 < taken.size(); i += 2) {
            permits.add(new Permit((String) taken.get(i), ((Number) taken.get(i + 1)).longValue()));
        }
        return List.copyOf(permits);
    }

    @Override
    public int availablePermits() {
        long deadline = engine.replies().deadlineOnceConnected(name, "count the permits of semaphore");
        CompletableFuture<Long> available = engine.calls().call(() -> new SemaphoreAvailable(
                        key, timeouts, channel, engine.connector().publishCommand())
                .run(engine.scripts()));
        return Math.toIntExact(engine.replies().await(available, name, "count the permits of semaphore", deadline));
    }

    @Override
    public @Nullable String tryAcquire(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return await(tryAcquireAsync(waitTime, leaseTime, unit).toCompletableFuture());
    }

    @Override
    public String acquire(long leaseTime, TimeUnit unit) throws InterruptedException {
        return Objects.requireNonNull(await(acquireAsync(leaseTime, unit).toCompletableFuture()));
    }

    @Override
    public CompletionStage<@Nullable String> tryAcquireAsync(long waitTime, long leaseTime, TimeUnit unit) {
        long leaseMillis = Arguments.leaseMillis(leaseTime, unit);
        long waitMillis = Arguments.waitMillis(waitTime, unit);
        engine.calls().ensureOpen(name);
        return new SemaphoreAcquisition(engine, watchdogPermits, this, leaseMillis, waitMillis).start();
    }

    @Override
    public CompletionStage<String> acquireAsync(long leaseTime, TimeUnit unit) {
        long leaseMillis = Arguments.leaseMillis(leaseTime, unit);
        engine.calls().ensureOpen(name);
        // The acquisition's own future, so that a cancel reaches it; a wait without end never gives null.
        return new SemaphoreAcquisition(engine, watchdogPermits, this, leaseMillis, Arguments.FOREVER).start();
    }

    @Override
    public void release(String permitId) {
        Objects.requireNonNull(permitId, "'permitId' must not be null");
        long deadline = engine.replies().deadlineOnceConnected(name, "release a permit of semaphore");
        CompletableFuture<Void> released = releaseAsync(permitId).toCompletableFuture();
        try {
            engine.replies().await(released, name, "release a permit of semaphore", deadline);
        } catch (LockException ex) {
            if (ex.getCause() instanceof IllegalArgumentException unknown) {
                throw new IllegalArgumentException(unknown.getMessage(), ex);
            }
            throw ex;
        }
    }

    @Override
    public CompletionStage<Void> releaseAsync(String permitId) {
        Objects.requireNonNull(permitId, "'permitId' must not be null");
        if (!PERMIT_ID.matcher(permitId).matches()) {
            return CompletableFuture.failedFuture(unknownPermit(permitId, "is not a permit id"));
        }
        watchdogPermits.remove(timeouts, permitId);
        return engine.replies()
                .within(
                        give(permitId),
                        name,
                        "release a permit of semaphore",
                        engine.replies().deadline())
                .thenApply(outcome -> {
                    if (outcome == 0) {
                        throw unknownPermit(
                                permitId,
                                "is not taken: released already, given back when its lease ended, or never" + " taken");
                    }
                    if (outcome < 0) {
                        throw unknownPermit(permitId, "had outlived its lease; it was given back now");
                    }
                    return null;
                });
    }

    /**
     * Gives back a permit by its id: 1 given back, -1 given back after its lease had ended, 0 unknown.
     * @param permitId the id
     * @return the script's reply
     */
    CompletableFuture<Long> give(String permitId) {
        return engine.calls().call(() -> new SemaphoreRelease(
                        key, timeouts, channel, permitId, engine.connector().publishCommand())
                .run(engine.scripts()));
    }

    private IllegalArgumentException unknownPermit(String permitId, String why) {
        return new IllegalArgumentException("Permit '" + permitId + "' of semaphore '" + name + "' " + why);
    }

    String key() {
        return key;
    }

    String timeouts() {
        return timeouts;
    }

    String channel() {
        return channel;
    }

    private @Nullable String await(CompletableFuture<@Nullable String> acquisition) throws InterruptedException {
        try {
            return acquisition.get();
        } catch (InterruptedException ex) {
            // The acquisition gives back a permit granted after this point.
            acquisition.cancel(false);
            throw ex;
        } catch (ExecutionException ex) {
            Throwable cause = ex.getCause() instanceof CompletionException wrapped && wrapped.getCause() != null
                    ? wrapped.getCause()
                    : ex.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new LockException("Cannot take a permit of semaphore '" + name + "': " + cause, cause);
        }
    }
}
