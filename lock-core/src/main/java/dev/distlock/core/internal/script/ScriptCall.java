package dev.distlock.core.internal.script;

import java.util.concurrent.CompletableFuture;

/**
 * One run of a Lua script with its KEYS and ARGV named and typed: each script has a record that
 * builds the two arrays in the order its header documents, so that no caller counts positions.
 * {@code ScriptHeaderTests} checks every record's {@link ScriptSignature} against its script.
 *
 * @param <T> the reply type, as Lettuce decodes the script's output type
 */
public interface ScriptCall<T> {

    /** @return the script and the names of its KEYS and ARGV */
    ScriptSignature signature();

    /** @return the KEYS, in order (the first one routes the call in a cluster) */
    String[] keys();

    /** @return the ARGV, in order */
    String[] args();

    /**
     * Runs the script by {@code EVALSHA}, falling back to {@code EVAL} on {@code NOSCRIPT}.
     * @param executor the client's script runner
     * @return the reply
     */
    default CompletableFuture<T> run(ScriptExecutor executor) {
        return executor.run(signature().script(), keys(), args());
    }

    /**
     * Runs the script by {@code EVAL}; see {@link ScriptExecutor#runBySource} for when that matters.
     * @param executor the client's script runner
     * @return the reply
     */
    default CompletableFuture<T> runBySource(ScriptExecutor executor) {
        return executor.runBySource(signature().script(), keys(), args());
    }
}
