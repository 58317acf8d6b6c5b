package dev.distlock.core.internal.kind;

import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.layout.RedissonLayout;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The inspection calls of one lock: what Redis holds at its key now, whoever holds it. Each call
 * fails with a {@code LockException} when Redis does not answer within one command timeout of the
 * connection being open.
 */
final class Inspection {

    private final LockEngine engine;
    private final String name;
    private final String key;

    Inspection(LockEngine engine, String name, String key) {
        this.engine = engine;
        this.name = name;
        this.key = key;
    }

    /** @return whether the lock key exists */
    boolean exists() {
        return read(redis -> redis.exists(key).toCompletableFuture()) > 0;
    }

    /**
     * @param field an owner field
     * @return whether the lock hash has it
     */
    boolean hasField(String field) {
        return read(redis -> redis.hexists(key, field).toCompletableFuture());
    }

    /**
     * @param field an owner field
     * @return its hold count, {@code 0} when absent
     */
    int holdCount(String field) {
        String count = read(redis -> redis.hget(key, field).toCompletableFuture());
        return count == null ? 0 : Integer.parseInt(count);
    }

    /** @return the key's TTL in ms, {@code -2} when absent, {@code -1} without expiry */
    long remainingTtl() {
        return read(redis -> redis.pttl(key).toCompletableFuture());
    }

    /** @return whether the lock is write-locked */
    boolean writeLocked() {
        return RedissonLayout.WRITE_MODE.equals(
                read(redis -> redis.hget(key, RedissonLayout.MODE_FIELD).toCompletableFuture()));
    }

    /** @return whether the lock is read-locked, including a writer's own read holds (Redisson's definition) */
    boolean readLocked() {
        long deadline = engine.replies().deadlineOnceConnected(name, "inspect");
        String mode = engine.replies()
                .await(
                        command(redis ->
                                redis.hget(key, RedissonLayout.MODE_FIELD).toCompletableFuture()),
                        name,
                        "inspect",
                        deadline);
        if (RedissonLayout.READ_MODE.equals(mode)) {
            return true;
        }
        if (!RedissonLayout.WRITE_MODE.equals(mode)) {
            return false;
        }
        // The mode field and the writer's field, plus at least one read hold.
        long fields = engine.replies()
                .await(command(redis -> redis.hlen(key).toCompletableFuture()), name, "inspect", deadline);
        return fields > 2;
    }

    private <T> T read(Command<T> command) {
        long deadline = engine.replies().deadlineOnceConnected(name, "inspect");
        return engine.replies().await(command(command), name, "inspect", deadline);
    }

    private <T> CompletableFuture<T> command(Command<T> command) {
        Supplier<CompletableFuture<T>> call =
                () -> command.send(engine.connector().commands());
        return engine.calls().call(call);
    }

    /** One read command on the command connection. */
    @FunctionalInterface
    private interface Command<T> {
        CompletableFuture<T> send(RedisClusterAsyncCommands<String, String> redis);
    }
}
