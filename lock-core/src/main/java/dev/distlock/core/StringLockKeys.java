package dev.distlock.core;

import dev.distlock.core.internal.engine.LockEngine;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * Lock keys in the plain string layout other Redis lock libraries write: one string key whose
 * value names the holder, set with {@code SET key value NX PX ttl} (the single-instance pattern
 * that ShedLock's Redis providers and Spring Integration's {@code RedisLockRegistry} use). For
 * bridges that must exclude such code on the same key while it is being migrated, not for new
 * locks: none of Distlock's holds, watchdog, listeners, wake-ups or fencing apply.
 *
 * <p>Keys are used exactly as given, without the client's key prefix. Each call is one atomic
 * command or script, sent on the client's command connection; it fails with a
 * {@link LockException} naming the key within the command timeout.
 */
public final class StringLockKeys {

    /** Sets the expiry only while the key still holds the caller's value. */
    private static final String EXPIRE_IF_HOLDER =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0";

    /** Deletes the key only while it still holds the caller's value. */
    private static final String DELETE_IF_HOLDER =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

    private final LockEngine engine;

    StringLockKeys(LockEngine engine) {
        this.engine = engine;
    }

    /**
     * Sets the key to the value with the given time to live, if the key does not exist.
     * @param key the Redis key, used as given
     * @param value the holder's value, unique per acquisition
     * @param ttl time to live, at least 1 ms
     * @return whether the key was set
     * @throws LockException if Redis does not answer in time
     */
    public boolean trySet(String key, String value, Duration ttl) {
        long millis = checked(key, value, ttl);
        String reply = run(key, "acquire", () -> engine.connector()
                .commands()
                .set(key, value, SetArgs.Builder.nx().px(millis))
                .toCompletableFuture());
        return "OK".equals(reply);
    }

    /**
     * Sets the key's time to live, if the key still holds the value.
     * @param key the Redis key, used as given
     * @param value the holder's value
     * @param ttl new time to live from now, at least 1 ms
     * @return whether the key held the value (and now expires after {@code ttl})
     * @throws LockException if Redis does not answer in time
     */
    public boolean expireIfHeld(String key, String value, Duration ttl) {
        long millis = checked(key, value, ttl);
        return eval(EXPIRE_IF_HOLDER, key, "extend", value, Long.toString(millis));
    }

    /**
     * Deletes the key, if it still holds the value.
     * @param key the Redis key, used as given
     * @param value the holder's value
     * @return whether the key held the value and was deleted
     * @throws LockException if Redis does not answer in time
     */
    public boolean deleteIfHeld(String key, String value) {
        checked(key, value, Duration.ofMillis(1));
        return eval(DELETE_IF_HOLDER, key, "release", value);
    }

    private boolean eval(String script, String key, String action, String... args) {
        Long result = run(key, action, () -> engine.connector()
                .commands()
                .<Long>eval(script, ScriptOutputType.INTEGER, new String[] {key}, args)
                .toCompletableFuture());
        return result != null && result == 1L;
    }

    /**
     * Sends one command once connected and waits for its reply; as for the locks' calls, the
     * command timeout starts once the connection is open (connecting has its own timeout).
     */
    private <T> T run(String key, String action, Supplier<CompletableFuture<T>> command) {
        CompletableFuture<T> reply = engine.calls().connected(key, action).thenCompose(connected -> engine.replies()
                .within(
                        engine.calls().call(command),
                        key,
                        action,
                        engine.replies().deadline()));
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return reply.get();
                } catch (InterruptedException ex) {
                    // As a release: the command is on its way, so its outcome must be known.
                    interrupted = true;
                } catch (ExecutionException ex) {
                    Throwable cause = ex.getCause() instanceof CompletionException wrapped && wrapped.getCause() != null
                            ? wrapped.getCause()
                            : ex.getCause();
                    if (cause instanceof RuntimeException runtime) {
                        throw runtime;
                    }
                    throw new LockException("Cannot " + action + " lock key '" + key + "': " + cause, cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static long checked(String key, String value, Duration ttl) {
        if (Objects.requireNonNull(key, "'key' must not be null").isBlank()) {
            throw new IllegalArgumentException("'key' must not be blank");
        }
        if (Objects.requireNonNull(value, "'value' must not be null").isEmpty()) {
            throw new IllegalArgumentException("'value' must not be empty");
        }
        long millis = Objects.requireNonNull(ttl, "'ttl' must not be null").toMillis();
        if (millis < 1) {
            throw new IllegalArgumentException("'ttl' must be at least 1 ms, was " + ttl);
        }
        return millis;
    }
}
