package dev.distlock.core;

import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.pubsub.ChannelWaiters;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * {@link LockException} naming the key within the command timeout. Waiters may
 * {@link #listen(String) listen} on a channel that releases publish to, over the client's pub/sub
 * connection.
 */
public final class StringLockKeys {

    /** Sets the expiry only while the key still holds the caller's value. */
    private static final String EXPIRE_IF_HOLDER =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0";

    /** Deletes the key only while it still holds the caller's value. */
    private static final String DELETE_IF_HOLDER =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

    /**
     * Sets the key if it is absent, or restarts its expiry if it holds the caller's value already:
     * Spring Integration's {@code RedisLockRegistry} obtain script, reply as an integer.
     */
    private static final String SET_OR_EXTEND = "local holder = redis.call('get', KEYS[1]) "
            + "if holder == ARGV[1] then redis.call('pexpire', KEYS[1], ARGV[2]) return 1 end "
            + "if not holder then redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[2]) return 1 end "
            + "return 0";

    /**
     * Deletes the key while it holds the caller's value and then publishes the message: Spring
     * Integration's {@code RedisLockRegistry} pub/sub unlock script.
     */
    private static final String DELETE_IF_HOLDER_AND_PUBLISH =
            "if redis.call('get', KEYS[1]) == ARGV[1] and redis.call('unlink', KEYS[1]) == 1 then "
                    + "redis.call('publish', ARGV[2], ARGV[3]) return 1 end return 0";

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

    /**
     * Sets the key to the value with the given time to live if the key does not exist, or gives it
     * that time to live from now if it holds the value already (a holder taking its key again).
     * @param key the Redis key, used as given
     * @param value the holder's value
     * @param ttl time to live, at least 1 ms
     * @return whether the key now holds the value
     * @throws LockException if Redis does not answer in time
     */
    public boolean trySetOrExtend(String key, String value, Duration ttl) {
        long millis = checked(key, value, ttl);
        return eval(SET_OR_EXTEND, key, "acquire", value, Long.toString(millis));
    }

    /**
     * Deletes the key if it still holds the value, and then publishes a message on a channel, so
     * that waiters listening there try again at once.
     * @param key the Redis key, used as given
     * @param value the holder's value
     * @param channel the channel to publish on
     * @param message the message
     * @return whether the key held the value and was deleted (nothing is published otherwise)
     * @throws LockException if Redis does not answer in time
     */
    public boolean deleteIfHeldAndPublish(String key, String value, String channel, String message) {
        checked(key, value, Duration.ofMillis(1));
        if (Objects.requireNonNull(channel, "'channel' must not be null").isBlank()) {
            throw new IllegalArgumentException("'channel' must not be blank");
        }
        Objects.requireNonNull(message, "'message' must not be null");
        return eval(DELETE_IF_HOLDER_AND_PUBLISH, key, "release", value, channel, message);
    }

    /**
     * Reads the key's time to live, for diagnostics.
     * @param key the Redis key, used as given
     * @return the time to live in milliseconds, {@code -2} when the key does not exist, {@code -1}
     *     when it has no expiry
     * @throws LockException if Redis does not answer in time
     */
    public long remainingTimeToLive(String key) {
        if (Objects.requireNonNull(key, "'key' must not be null").isBlank()) {
            throw new IllegalArgumentException("'key' must not be blank");
        }
        Long ttl = run(
                key, "inspect", () -> engine.connector().commands().pttl(key).toCompletableFuture());
        return ttl != null ? ttl : -2;
    }

    /**
     * Starts listening on a channel that releases publish to, over the client's pub/sub connection
     * (shared with the locks' wake-ups). Listen before the last try, then {@link Listener#await
     * await}: a release between the two is not missed. In a Cluster the client subscribes sharded
     * channels, which a plain {@code PUBLISH} does not reach, so waiters must also retry on a timer.
     * @param channel the channel
     * @return the listener, to close once the wait is over
     */
    public Listener listen(String channel) {
        if (Objects.requireNonNull(channel, "'channel' must not be null").isBlank()) {
            throw new IllegalArgumentException("'channel' must not be blank");
        }
        return new Listener(engine.subscriptions().join(channel));
    }

    /** A subscription to one channel, joined by {@link #listen(String)}. */
    public final class Listener implements AutoCloseable {

        private final ChannelWaiters waiters;
        private boolean closed;

        private Listener(ChannelWaiters waiters) {
            this.waiters = waiters;
        }

        /**
         * Waits for a message on the channel, or for the time to pass. A message that arrived since
         * the last call (or since {@link #listen(String)}) returns at once.
         * @param timeout the longest wait
         * @return whether a message arrived
         * @throws InterruptedException if interrupted while waiting
         */
        public boolean await(Duration timeout) throws InterruptedException {
            long millis = Objects.requireNonNull(timeout, "'timeout' must not be null")
                    .toMillis();
            CompletableFuture<Boolean> parked = waiters.park(Math.max(0, millis), engine.scheduler());
            try {
                // The scheduler completes the park; the margin only guards against it being shut down.
                return parked.get(Math.max(0, millis) + 1_000, TimeUnit.MILLISECONDS);
            } catch (InterruptedException ex) {
                parked.cancel(false);
                throw ex;
            } catch (ExecutionException | TimeoutException ex) {
                parked.cancel(false);
                return false;
            }
        }

        /** Leaves the channel; further calls do nothing. */
        @Override
        public void close() {
            if (!closed) {
                closed = true;
                waiters.leave();
            }
        }
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
