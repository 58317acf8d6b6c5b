package dev.distlock.core;

import dev.distlock.core.test.RedisServer;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** A Redisson client plus one thread of its own, since Redisson's locks belong to the calling thread. */
final class RedissonInterop implements AutoCloseable {

    private final RedissonClient redisson;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "redisson-owner"));

    RedissonInterop(RedisServer redis) {
        Config config = new Config();
        config.useSingleServer()
                .setAddress(redis.uri())
                .setConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionMinimumIdleSize(1);
        this.redisson = Redisson.create(config);
    }

    RedissonClient client() {
        return redisson;
    }

    /** Runs on the Redisson owner thread and waits for the result. */
    <T> T call(Callable<T> call) throws Exception {
        return thread.submit(call).get(30, TimeUnit.SECONDS);
    }

    /** Starts on the Redisson owner thread without waiting. */
    <T> Future<T> submit(Callable<T> call) {
        return thread.submit(call);
    }

    @Override
    public void close() throws InterruptedException {
        thread.shutdownNow();
        thread.awaitTermination(5, TimeUnit.SECONDS);
        redisson.shutdown();
    }
}
