package dev.distlock.core.internal.script;

import dev.distlock.core.internal.Failures;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs scripts by {@code EVALSHA} and, only when the server answers {@code NOSCRIPT} (the script
 * was never loaded, or was flushed), once more by {@code EVAL}, which also caches it. A script that
 * failed any other way is never resent: lock scripts are not idempotent.
 */
public final class ScriptExecutor {

    private final Supplier<RedisClusterAsyncCommands<String, String>> commands;
    private final Consumer<Throwable> onFailure;

    /**
     * Creates an executor.
     * @param commands supplies the connection's async commands (standalone or cluster)
     */
    public ScriptExecutor(Supplier<RedisClusterAsyncCommands<String, String>> commands) {
        this(commands, failure -> {});
    }

    /**
     * Creates an executor that reports failed calls.
     * @param commands supplies the connection's async commands (standalone or cluster)
     * @param onFailure told of every call that failed other than by {@code NOSCRIPT}
     */
    public ScriptExecutor(Supplier<RedisClusterAsyncCommands<String, String>> commands, Consumer<Throwable> onFailure) {
        this.commands = commands;
        this.onFailure = onFailure;
    }

    /**
     * Runs a script by {@code EVAL}, sending its source. For calls made when Redis may not be
     * answering: an {@code EVALSHA} whose {@code NOSCRIPT} reply arrives after the command timed out
     * is never resent, so on a server that had not cached the script it would silently not run.
     * @param script the script
     * @param keys its KEYS (the first one routes the call in a cluster)
     * @param args its ARGV
     * @param <T> reply type
     * @return the reply
     */
    public <T> CompletableFuture<T> runBySource(LuaScript script, String[] keys, String... args) {
        return commands.get()
                .<T>eval(script.source(), script.outputType(), keys, args)
                .toCompletableFuture()
                .whenComplete((reply, failure) -> {
                    if (failure != null) {
                        onFailure.accept(failure);
                    }
                });
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
        ScriptReply<T> reply = new ScriptReply<>(redis, script, keys, args);
        redis.<T>evalsha(script.sha1(), script.outputType(), keys, args)
                .toCompletableFuture()
                .whenComplete(reply);
        return reply;
    }

    /**
     * The reply of one script run: the {@code EVALSHA} reply, or on {@code NOSCRIPT} that of the
     * {@code EVAL} sent instead. One future per run, completed with the failure's cause.
     */
    private final class ScriptReply<T> extends CompletableFuture<T> implements BiConsumer<T, Throwable> {

        private final RedisClusterAsyncCommands<String, String> redis;
        private final LuaScript script;
        private final String[] keys;
        private final String[] args;

        ScriptReply(RedisClusterAsyncCommands<String, String> redis, LuaScript script, String[] keys, String[] args) {
            this.redis = redis;
            this.script = script;
            this.keys = keys;
            this.args = args;
        }

        @Override
        public void accept(T reply, Throwable failure) {
            if (failure == null) {
                complete(reply);
                return;
            }
            Throwable cause = Failures.cause(failure);
            if (cause instanceof RedisNoScriptException) {
                redis.<T>eval(script.source(), script.outputType(), keys, args)
                        .toCompletableFuture()
                        .whenComplete((evalReply, evalFailure) -> {
                            if (evalFailure != null) {
                                onFailure.accept(evalFailure);
                                completeExceptionally(Failures.cause(evalFailure));
                            } else {
                                complete(evalReply);
                            }
                        });
                return;
            }
            onFailure.accept(cause);
            completeExceptionally(cause);
        }
    }
}
