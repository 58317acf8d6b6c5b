package dev.distlock.core;

import dev.distlock.core.internal.engine.Arguments;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.kind.DefaultRedisReadWriteLock;
import dev.distlock.core.internal.kind.DefaultRedisSemaphore;
import dev.distlock.core.internal.kind.FairRedisLock;
import dev.distlock.core.internal.kind.FencedRedisLock;
import dev.distlock.core.internal.kind.ReentrantRedisLock;
import dev.distlock.core.internal.kind.WatchdogPermits;
import dev.distlock.core.internal.layout.RedissonLayout;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

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
    private final WatchdogPermits watchdogPermits;

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(LockClient.class);

    private LockClient(LockClientOptions options) {
        this.engine = new LockEngine(options);
        this.watchdogPermits = new WatchdogPermits(engine);
        String tag = RedissonLayout.hashTag(options.keyPrefix());
        if (tag != null && !options.clusterNodes().isEmpty()) {
            log.warn(
                    "Key prefix '{}' contains the hash tag '{}': in a Redis Cluster every lock of this client maps to"
                            + " one slot, so one master serves them all",
                    options.keyPrefix(),
                    "{" + tag + "}");
        }
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
     * (Redisson's {@code RFairLock} layout). Only the next waiter is told of a release. A waiter
     * keeps its place by checking in at least every third of
     * {@link LockClientOptions#fairLockWaitTimeout()}; one that stops (its process died) is dropped
     * from the queue once that timeout passes, wherever it stands. {@code tryLock()} without a
     * wait fails when the lock is held or someone is queued.
     * @param name lock name, not blank
     * @return the lock
     */
    public RedisLock getFairLock(String name) {
        return new FairRedisLock(engine, name);
    }

    /**
     * Returns a read-write lock (Redisson's {@code RReadWriteLock} layout). Each read hold has its
     * own lease. Writers are preferred: while a writer waits, readers that do not already hold the
     * read lock wait behind it (holders may re-enter), so a stream of readers cannot starve writers.
     * The write lock holder may take the read lock (downgrade); the reverse is refused.
     * @param name lock name, not blank
     * @return the lock
     */
    public RedisReadWriteLock getReadWriteLock(String name) {
        return new DefaultRedisReadWriteLock(engine, name);
    }

    /**
     * Returns a semaphore whose permits free themselves: each permit has an id and a lease, and
     * comes back when released or when its lease ends. Redisson's {@code RPermitExpirableSemaphore}
     * of the same name shares its permits. See {@link RedisSemaphore}.
     * @param name semaphore name (the key prefix is prepended)
     * @return a view of the semaphore; nothing is sent to Redis yet
     */
    public RedisSemaphore getSemaphore(String name) {
        return new DefaultRedisSemaphore(engine, watchdogPermits, name);
    }

    /**
     * Returns plain string lock keys ({@code SET key value NX PX}), the layout other Redis lock
     * libraries write, on this client's connection: for bridges that share a lock with such code
     * during a migration. See {@link StringLockKeys}.
     * @return the view, cheap to create
     */
    public StringLockKeys stringLockKeys() {
        return new StringLockKeys(engine);
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
     * Sends a {@code PING} and measures the round trip, once the connection is open.
     * @return the round-trip time
     * @throws LockException if the client cannot connect, or Redis does not answer within the
     *     command timeout
     */
    public Duration ping() {
        // The round trip of the PING itself: opening the connection has its own timeout.
        long deadline = engine.replies().deadlineOnceConnected("(ping)", "ping for");
        long start = System.nanoTime();
        engine.replies()
                .await(
                        engine.calls()
                                .call(() -> engine.connector().commands().ping().toCompletableFuture()),
                        "(ping)",
                        "ping for",
                        deadline);
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /**
     * Sends a {@code PING} on the pub/sub connection that wakes waiting callers, opening it if it
     * is not open yet, and measures the round trip. Locks still work without it (waiters then
     * re-check when the holder's lease ends), but hand-offs become slow.
     * @return the round-trip time
     * @throws LockException if the connection cannot be opened or Redis does not answer within the
     *     command timeout
     */
    public Duration pingSubscriptions() {
        long start = System.nanoTime();
        engine.replies()
                .await(
                        engine.calls().call(() -> engine.subscriptions().ping()),
                        "(ping)",
                        "ping the wake-up connection for");
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /**
     * Reads a lock's state from Redis: holders, lease left, fair-lock queue length. One round trip
     * per field read, all to the lock's slot; for diagnostics, not for deciding who may proceed.
     * @param name lock name, not blank
     * @return the state
     */
    public LockInfo inspect(String name) {
        RedissonLayout layout = engine.layout(engine.key(Arguments.requireName(name)));
        String key = layout.key();
        // The three reads go out together, once connected, and share one deadline.
        long deadline = engine.replies().deadlineOnceConnected(name, "inspect");
        CompletableFuture<Map<String, String>> hash = engine.calls()
                .call(() -> engine.connector().commands().hgetall(key).toCompletableFuture());
        CompletableFuture<Long> ttl = engine.calls()
                .call(() -> engine.connector().commands().pttl(key).toCompletableFuture());
        CompletableFuture<Long> queue = engine.calls()
                .call(() -> engine.connector().commands().llen(layout.queue()).toCompletableFuture());
        Map<String, String> fields = engine.replies().await(hash, name, "inspect", deadline);
        Map<String, Long> holders = new LinkedHashMap<>();
        fields.forEach((field, value) -> {
            if (!RedissonLayout.MODE_FIELD.equals(field)
                    && value.chars().allMatch(Character::isDigit)
                    && !value.isEmpty()) {
                holders.put(field, Long.parseLong(value));
            }
        });
        long remaining = engine.replies().await(ttl, name, "inspect", deadline);
        return new LockInfo(
                name,
                remaining != -2,
                fields.get(RedissonLayout.MODE_FIELD),
                Map.copyOf(holders),
                remaining,
                engine.replies().await(queue, name, "inspect", deadline));
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
     * Returns the {@code maxmemory-policy} of each Redis server that holds this client's locks: the
     * server (the current master behind Sentinel) or every master of a Cluster that serves slots. The
     * client reads it with {@code INFO memory} each time a connection to a server opens or reconnects,
     * never on a lock call, and logs a warning once per server and policy when the policy may evict
     * lock keys (every policy but {@code noeviction}). Reads nothing from Redis.
     * @return one entry per server, sorted by server; empty until the first connection opened
     */
    public List<EvictionPolicy> evictionPolicies() {
        return engine.connector().evictionPolicies().snapshot().entrySet().stream()
                .map(entry -> new EvictionPolicy(entry.getKey(), entry.getValue()))
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
