package dev.distlock.benchmarks;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * A lock implementation's asynchronous API, for the scenarios in which no thread waits for a lock:
 * take a named lock for an explicit owner, release it for that owner. Both always give a lease of
 * {@link LockLibrary#LEASE_MILLIS}, so neither runs a watchdog.
 *
 * <p>Identifiers: {@code distlock-async} ({@link RedisLock#tryLockAsync}, {@link RedisLock#unlockAsync}
 * with owners from {@link RedisLock#newOwnerId()}) and {@code redisson-async}
 * ({@code RLock.tryLockAsync(wait, lease, unit, threadId)}, {@code RLock.unlockAsync(threadId)}
 * with made-up thread ids, which is what Redisson's own async callers do).
 */
interface AsyncLockLibrary extends AutoCloseable {

    /** Library identifiers, in table order. */
    List<String> ALL = List.of("distlock-async", "redisson-async");

    /** @return an owner id no other owner of this library uses */
    long newOwner();

    /**
     * Starts taking the lock; the returned stage completes on the library's own threads.
     * @param key lock name
     * @param waitMillis longest wait
     * @param owner owner from {@link #newOwner()}
     * @return completes with whether the lock was taken
     */
    CompletionStage<Boolean> tryLock(String key, long waitMillis, long owner);

    /**
     * Starts releasing a lock the owner holds.
     * @param key lock name
     * @param owner the owner that took it
     * @return completes once released
     */
    CompletionStage<Void> unlock(String key, long owner);

    @Override
    void close();

    /**
     * Opens a library against a server.
     * @param id library identifier
     * @param host server host
     * @param port server port
     * @return the open library (one client)
     */
    static AsyncLockLibrary open(String id, String host, int port) {
        String uri = "redis://" + host + ":" + port;
        return switch (id) {
            case "distlock-async" -> new DistlockAsync(uri);
            case "redisson-async" -> new RedissonAsync(uri);
            default -> throw new IllegalArgumentException("Unknown async library '" + id + "'; expected one of " + ALL);
        };
    }

    /** @return whether {@code id} names an async library */
    static boolean isAsync(String id) {
        return ALL.contains(id);
    }

    /** Distlock: one {@link LockClient}. */
    final class DistlockAsync implements AsyncLockLibrary {

        private final LockClient client;

        DistlockAsync(String uri) {
            this.client = LockClient.create(uri);
        }

        @Override
        public long newOwner() {
            return RedisLock.newOwnerId();
        }

        @Override
        public CompletionStage<Boolean> tryLock(String key, long waitMillis, long owner) {
            return client.getLock(key).tryLockAsync(waitMillis, LockLibrary.LEASE_MILLIS, TimeUnit.MILLISECONDS, owner);
        }

        @Override
        public CompletionStage<Void> unlock(String key, long owner) {
            return client.getLock(key).unlockAsync(owner);
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** Redisson with its default configuration (single server). */
    final class RedissonAsync implements AsyncLockLibrary {

        // Far above any real thread id, so a made-up owner never meets one.
        private final AtomicLong owners = new AtomicLong(1L << 40);
        private final RedissonClient client;

        RedissonAsync(String uri) {
            Config config = new Config();
            config.useSingleServer().setAddress(uri);
            this.client = Redisson.create(config);
        }

        @Override
        public long newOwner() {
            return owners.incrementAndGet();
        }

        @Override
        public CompletionStage<Boolean> tryLock(String key, long waitMillis, long owner) {
            return client.getLock(key).tryLockAsync(waitMillis, LockLibrary.LEASE_MILLIS, TimeUnit.MILLISECONDS, owner);
        }

        @Override
        public CompletionStage<Void> unlock(String key, long owner) {
            return client.getLock(key).unlockAsync(owner);
        }

        @Override
        public void close() {
            client.shutdown();
        }
    }
}
