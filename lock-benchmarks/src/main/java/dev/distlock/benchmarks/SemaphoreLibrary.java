package dev.distlock.benchmarks;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisSemaphore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * One semaphore whose permits expire, for scenario S: set the permit count once, take a permit with
 * a lease of {@link LockLibrary#LEASE_MILLIS} (waiting up to a bound), give it back by its id. Both
 * libraries keep the same data (Redisson's {@code RPermitExpirableSemaphore} layout) and neither
 * runs a watchdog, since a lease is always given.
 *
 * <p>Identifiers: {@code distlock} ({@link LockClient#getSemaphore(String)}) and {@code redisson}
 * ({@code RedissonClient.getPermitExpirableSemaphore}, default configuration).
 */
interface SemaphoreLibrary extends AutoCloseable {

    /** Library identifiers, in table order. */
    List<String> ALL = List.of("distlock", "redisson");

    /**
     * Sets the semaphore's permits if none are set yet.
     * @param permits permit count
     */
    void trySetPermits(int permits);

    /**
     * Takes a permit.
     * @param waitMillis longest wait
     * @return the permit's id, or {@code null} when none came within the wait
     * @throws InterruptedException if interrupted while waiting
     */
    @Nullable
    String acquire(long waitMillis) throws InterruptedException;

    /**
     * Gives a permit back.
     * @param permitId the id {@link #acquire} returned
     */
    void release(String permitId);

    @Override
    void close();

    /**
     * Opens a library against a server.
     * @param id library identifier
     * @param host server host
     * @param port server port
     * @param name semaphore name
     * @return the open library (one client, and the semaphore object obtained once)
     */
    static SemaphoreLibrary open(String id, String host, int port, String name) {
        String uri = "redis://" + host + ":" + port;
        return switch (id) {
            case "distlock" -> new Distlock(LockClient.create(uri), name);
            case "redisson" -> new RedissonSemaphores(uri, name);
            default -> throw new IllegalArgumentException("Unknown library '" + id + "'; expected one of " + ALL);
        };
    }

    /** Distlock: one {@link LockClient}. */
    final class Distlock implements SemaphoreLibrary {

        private final LockClient client;
        private final RedisSemaphore semaphore;

        Distlock(LockClient client, String name) {
            this.client = client;
            this.semaphore = client.getSemaphore(name);
        }

        @Override
        public void trySetPermits(int permits) {
            semaphore.trySetPermits(permits);
        }

        @Override
        public @Nullable String acquire(long waitMillis) throws InterruptedException {
            return semaphore.tryAcquire(waitMillis, LockLibrary.LEASE_MILLIS, TimeUnit.MILLISECONDS);
        }

        @Override
        public void release(String permitId) {
            semaphore.release(permitId);
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** Redisson with its default configuration (single server). */
    final class RedissonSemaphores implements SemaphoreLibrary {

        private final RedissonClient client;
        private final RPermitExpirableSemaphore semaphore;

        RedissonSemaphores(String uri, String name) {
            Config config = new Config();
            config.useSingleServer().setAddress(uri);
            this.client = Redisson.create(config);
            this.semaphore = client.getPermitExpirableSemaphore(name);
        }

        @Override
        public void trySetPermits(int permits) {
            semaphore.trySetPermits(permits);
        }

        @Override
        public @Nullable String acquire(long waitMillis) throws InterruptedException {
            return semaphore.tryAcquire(waitMillis, LockLibrary.LEASE_MILLIS, TimeUnit.MILLISECONDS);
        }

        @Override
        public void release(String permitId) {
            semaphore.release(permitId);
        }

        @Override
        public void close() {
            client.shutdown();
        }
    }
}
