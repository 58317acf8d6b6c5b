package dev.distlock.benchmarks;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * One lock implementation under test, behind the smallest interface the scenarios need: take a
 * named lock (waiting up to a bound) and release it from the same thread.
 *
 * <p>Identifiers: {@code raw}, {@code distlock}, {@code distlock-watchdog}, {@code distlock-fair},
 * {@code distlock-read}, {@code redisson}, {@code redisson-watchdog}, {@code redisson-fair},
 * {@code redisson-read}, {@code spring-spin}, {@code spring-pubsub}. Without {@code -watchdog} a
 * lease of {@link #LEASE_MILLIS} is given; Spring's registry always expires after its
 * {@code expireAfter} (set to the same lease).
 */
interface LockLibrary extends AutoCloseable {

    long LEASE_MILLIS = 30_000;

    /** Library identifiers, in table order. */
    List<String> ALL = List.of(
            "raw",
            "distlock",
            "distlock-watchdog",
            "redisson",
            "redisson-watchdog",
            "spring-spin",
            "spring-pubsub",
            "distlock-fair",
            "redisson-fair",
            "distlock-read",
            "redisson-read");

    /**
     * Takes the lock.
     * @param key lock name
     * @param waitMillis longest wait (ignored by {@code raw}, which never waits)
     * @return whether the lock was taken
     * @throws InterruptedException if interrupted while waiting
     */
    boolean lock(String key, long waitMillis) throws InterruptedException;

    /**
     * Releases a lock this thread took.
     * @param key lock name
     */
    void unlock(String key);

    @Override
    void close();

    /**
     * Opens a library against a server.
     * @param id library identifier
     * @param host server host
     * @param port server port
     * @return the open library (one client, i.e. one set of connections)
     */
    static LockLibrary open(String id, String host, int port) {
        return open(id, host, port, null);
    }

    /**
     * Opens a library against a server.
     * @param id library identifier
     * @param host server host
     * @param port server port
     * @param watchdog watchdog timeout, or {@code null} for the library's default (30 s for both)
     * @return the open library
     */
    static LockLibrary open(String id, String host, int port, @org.jspecify.annotations.Nullable Duration watchdog) {
        String uri = "redis://" + host + ":" + port;
        return switch (id) {
            case "raw" -> new RawFloor(uri);
            case "distlock", "distlock-watchdog", "distlock-fair", "distlock-read" ->
                new DistlockLibrary(id, uri, watchdog);
            case "redisson", "redisson-watchdog", "redisson-fair", "redisson-read" ->
                new RedissonLibrary(id, uri, watchdog);
            case "spring-spin", "spring-pubsub" -> new SpringLibrary(id, host, port);
            default -> throw new IllegalArgumentException("Unknown library '" + id + "'; expected one of " + ALL);
        };
    }

    /**
     * The floor: one multiplexed Lettuce connection sending the two smallest correct scripts by
     * {@code EVALSHA}, no waiting logic, no bookkeeping.
     */
    final class RawFloor implements LockLibrary {

        static final String ACQUIRE = "return redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])";
        static final String RELEASE =
                "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end" + " return 0";

        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;
        private final RedisAsyncCommands<String, String> async;
        private final String acquireSha;
        private final String releaseSha;
        private final String lease = Long.toString(LEASE_MILLIS);

        RawFloor(String uri) {
            this.client = RedisClient.create(RedisURI.create(uri));
            this.connection = client.connect();
            this.async = connection.async();
            this.acquireSha = connection.sync().scriptLoad(ACQUIRE);
            this.releaseSha = connection.sync().scriptLoad(RELEASE);
        }

        private static String token() {
            return "raw:" + Thread.currentThread().getId();
        }

        @Override
        public boolean lock(String key, long waitMillis) {
            Object reply = get(async.evalsha(acquireSha, ScriptOutputType.STATUS, new String[] {key}, token(), lease));
            return "OK".equals(reply);
        }

        @Override
        public void unlock(String key) {
            Long deleted = get(async.evalsha(releaseSha, ScriptOutputType.INTEGER, new String[] {key}, token()));
            if (deleted == null || deleted != 1) {
                throw new IllegalMonitorStateException("raw floor: '" + key + "' was not held");
            }
        }

        private static <T> T get(io.lettuce.core.RedisFuture<T> future) {
            try {
                return future.get(10, TimeUnit.SECONDS);
            } catch (Exception ex) {
                throw new IllegalStateException("raw floor call failed", ex);
            }
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** Distlock: one {@link LockClient} (one multiplexed connection plus one pub/sub connection). */
    final class DistlockLibrary implements LockLibrary {

        private final String id;
        private final LockClient client;

        DistlockLibrary(String id, String uri, @org.jspecify.annotations.Nullable Duration watchdog) {
            this.id = id;
            LockClientOptions.Builder options = LockClientOptions.builder().uri(uri);
            if (watchdog != null) {
                options.watchdogTimeout(watchdog);
            }
            this.client = LockClient.create(options.build());
        }

        private java.util.concurrent.locks.Lock lockOf(String key) {
            return switch (id) {
                case "distlock-fair" -> client.getFairLock(key);
                case "distlock-read" -> client.getReadWriteLock(key).readLock();
                default -> client.getLock(key);
            };
        }

        @Override
        public boolean lock(String key, long waitMillis) throws InterruptedException {
            if (id.equals("distlock-watchdog")) {
                return client.getLock(key).tryLock(waitMillis, TimeUnit.MILLISECONDS);
            }
            java.util.concurrent.locks.Lock lock = lockOf(key);
            return ((dev.distlock.core.RedisLock) lock).tryLock(waitMillis, LEASE_MILLIS, TimeUnit.MILLISECONDS);
        }

        @Override
        public void unlock(String key) {
            lockOf(key).unlock();
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** Redisson with its default configuration (single server). */
    final class RedissonLibrary implements LockLibrary {

        private final String id;
        private final RedissonClient client;

        RedissonLibrary(String id, String uri, @org.jspecify.annotations.Nullable Duration watchdog) {
            this.id = id;
            Config config = new Config();
            if (watchdog != null) {
                config.setLockWatchdogTimeout(watchdog.toMillis());
            }
            config.useSingleServer().setAddress(uri);
            this.client = Redisson.create(config);
        }

        private RLock lockOf(String key) {
            return switch (id) {
                case "redisson-fair" -> client.getFairLock(key);
                case "redisson-read" -> client.getReadWriteLock(key).readLock();
                default -> client.getLock(key);
            };
        }

        @Override
        public boolean lock(String key, long waitMillis) throws InterruptedException {
            if (id.equals("redisson-watchdog")) {
                return client.getLock(key).tryLock(waitMillis, TimeUnit.MILLISECONDS);
            }
            return lockOf(key).tryLock(waitMillis, LEASE_MILLIS, TimeUnit.MILLISECONDS);
        }

        @Override
        public void unlock(String key) {
            lockOf(key).unlock();
        }

        @Override
        public void close() {
            client.shutdown();
        }
    }

    /** Spring Integration's {@link RedisLockRegistry} over a Lettuce connection factory (shared connection). */
    final class SpringLibrary implements LockLibrary {

        private final LettuceConnectionFactory factory;
        private final RedisLockRegistry registry;

        SpringLibrary(String id, String host, int port) {
            this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
            this.factory.afterPropertiesSet();
            this.factory.start();
            this.registry = new RedisLockRegistry(factory, "distlock-bench", LEASE_MILLIS);
            this.registry.setRedisLockType(
                    id.equals("spring-pubsub")
                            ? RedisLockRegistry.RedisLockType.PUB_SUB_LOCK
                            : RedisLockRegistry.RedisLockType.SPIN_LOCK);
        }

        @Override
        public boolean lock(String key, long waitMillis) throws InterruptedException {
            return registry.obtain(key).tryLock(waitMillis, TimeUnit.MILLISECONDS);
        }

        @Override
        public void unlock(String key) {
            registry.obtain(key).unlock();
        }

        @Override
        public void close() {
            registry.destroy();
            factory.destroy();
        }
    }
}
