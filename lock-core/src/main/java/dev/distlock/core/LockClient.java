package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import dev.distlock.core.internal.lock.FencedRedisLock;
import dev.distlock.core.internal.lock.LockEngine;
import dev.distlock.core.internal.lock.ReentrantRedisLock;

/**
 * Entry point of Distlock: creates locks by name and owns what they share, namely one multiplexed
 * Redis connection, one pub/sub connection, the Lua scripts and one lease watchdog.
 *
 * <p>Locks use Redisson's data layout, so a Distlock client and a Redisson client exclude each
 * other on the same lock name (with the same key prefix). Create one client per application and
 * close it on shutdown; closing does not release held locks, which then expire with their lease.
 *
 * <p>Connections are opened on first use: creating a client never fails because Redis is down.
 * Use {@link #ping()} to check reachability.
 */
public final class LockClient implements AutoCloseable {

    private final LockEngine engine;

    private LockClient(LockClientOptions options) {
        this.engine = new LockEngine(options);
    }

    /**
     * Creates a client for one server with default options.
     * @param redisUri {@code redis://[user:password@]host[:port][/db]}, or {@code rediss://} for TLS
     * @return a new client
     */
    public static LockClient create(String redisUri) {
        return create(LockClientOptions.builder().uri(redisUri).build());
    }

    /**
     * Creates a client.
     * @param options the options
     * @return a new client
     */
    public static LockClient create(LockClientOptions options) {
        return new LockClient(Objects.requireNonNull(options, "'options' must not be null"));
    }

    /**
     * Returns a reentrant lock (Redisson's {@code RLock}). Cheap: locks are views, create them freely.
     * @param name lock name, not blank; the Redis key is the key prefix plus this name
     * @return the lock
     */
    public RedisLock getLock(String name) {
        return new ReentrantRedisLock(engine, name);
    }

    /**
     * Returns a fenced lock: a reentrant lock whose every acquisition returns a strictly increasing
     * fencing token (Redisson's {@code RFencedLock} layout).
     * @param name lock name, not blank
     * @return the lock
     */
    public FencedLock getFencedLock(String name) {
        return new FencedRedisLock(engine, name);
    }

    /**
     * Returns a fair lock: waiters acquire in the order they asked, across threads and clients
     * (Redisson's {@code RFairLock} layout).
     * @param name lock name, not blank
     * @return the lock
     */
    public RedisLock getFairLock(String name) {
        throw new UnsupportedOperationException("fair lock is not implemented yet");
    }

    /**
     * Returns a read-write lock (Redisson's {@code RReadWriteLock} layout).
     * @param name lock name, not blank
     * @return the lock
     */
    public RedisReadWriteLock getReadWriteLock(String name) {
        throw new UnsupportedOperationException("read-write lock is not implemented yet");
    }

    /**
     * Returns this client's id, a random UUID that forms part of every owner field it writes.
     * @return the client id
     */
    public String getId() {
        return engine.clientId();
    }

    /**
     * Returns the options this client was built with.
     * @return the options
     */
    public LockClientOptions getOptions() {
        return engine.options();
    }

    /**
     * Sends a {@code PING} and measures the round trip.
     * @return the round-trip time
     * @throws LockException if Redis does not answer within the command timeout
     */
    public Duration ping() {
        long start = System.nanoTime();
        engine.await(engine.call(() -> engine.connector().commands().ping().toCompletableFuture()), "(ping)", "ping for");
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /**
     * Returns the holds this client has taken and not released, as this client knows them.
     * @return a snapshot, in no particular order
     */
    public List<HeldLock> heldLocks() {
        return engine.holds().snapshot().stream()
                .map(h -> new HeldLock(h.lockName(), h.kind(), h.ownerId(), h.count(), h.since(), h.watchdog()))
                .toList();
    }

    /**
     * Returns whether {@link #close()} was called.
     * @return whether closed
     */
    public boolean isClosed() {
        return engine.isClosed();
    }

    /**
     * Stops the watchdog and closes the connections. Threads waiting for a lock fail with a
     * {@link LockException}; held locks are not released and expire with their lease.
     */
    @Override
    public void close() {
        engine.close();
    }

    LockEngine engine() {
        return engine;
    }
}
