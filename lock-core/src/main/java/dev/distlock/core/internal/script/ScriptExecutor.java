package dev.distlock.core.internal.script;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * Runs scripts by {@code EVALSHA} and, only when the server answers {@code NOSCRIPT} (the script
 * was never loaded, or was flushed), once more by {@code EVAL}, which also caches it. A script that
 * failed any other way is never resent: lock scripts are not idempotent.
 */
public final class ScriptExecutor {

    private final Supplier<RedisClusterAsyncCommands<String, String>> commands;

    /**
     * Creates an executor.
     * @param commands supplies the connection's async commands (standalone or cluster)
     */
    public ScriptExecutor(Supplier<RedisClusterAsyncCommands<String, String>> commands) {
        this.commands = commands;
    }

    /**
     * Runs a script.
     * @param script the script
     * @param keys its KEYS (the first one routes the call in a cluster)
     * @param args its ARGV
     * @param <T> reply type
     * @return the reply
     */
    public <T> CompletableFuture<T> run(LuaScript script, String[] keys, String... args) {
        RedisClusterAsyncCommands<String, String> redis = commands.get();
        CompletableFuture<T> bySha = redis.<T>evalsha(script.sha1(), script.outputType(), keys, args).toCompletableFuture();
        return bySha.handle((reply, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(reply);
            }
            Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof RedisNoScriptException) {
                return redis.<T>eval(script.source(), script.outputType(), keys, args).toCompletableFuture();
            }
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(f -> f);
    }
}
