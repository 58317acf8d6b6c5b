package dev.distlock.core.internal.kind;

import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.hold.Hold;
import dev.distlock.core.internal.layout.RedissonLayout;
import dev.distlock.core.internal.script.ReadHoldTimeouts;
import dev.distlock.core.internal.script.ScriptCall;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs a read-write lock script with the read hold timeout keys it decides on declared in KEYS, so
 * that in a cluster Redis refuses to run it while a slot migration has those keys on another node
 * than the lock's hash (see {@link ReadHoldTimeouts}). The keys of the readers last seen here come
 * first, so a writer that waits on the same readers makes one call an attempt; when the readers
 * changed, the script says so without granting or giving up anything, the lock's hash is read for
 * its readers and the script called again.
 */
final class DeclaredReadHolds {

    /** Calls made before giving up on readers that change faster than they can be read. */
    static final int ROUNDS = 5;

    private final LockEngine engine;
    private final String key;
    private volatile List<String> lastSeen = List.of();

    DeclaredReadHolds(LockEngine engine, String key) {
        this.engine = engine;
        this.key = key;
    }

    /**
     * Runs a script until it could decide, within {@link #ROUNDS} calls.
     * @param reader the caller's reader field, whose holds' keys up to its next one are declared
     *     too, or {@code null}
     * @param call builds the script call for the keys to declare and whether it must be tidy (decide
     *     only with every reader's holds declared): every call but the last
     * @param undecided the reply when the readers kept changing
     * @return the script's reply
     */
    CompletableFuture<@Nullable Long> run(
            @Nullable String reader,
            BiFunction<List<String>, Boolean, ScriptCall<@Nullable Long>> call,
            Supplier<CompletableFuture<@Nullable Long>> undecided) {
        return attempt(reader, call, undecided, withOwn(lastSeen, reader), ROUNDS, false);
    }

    /**
     * As {@link #run}, sending the script by source ({@link ScriptCall#runBySource}): for a call
     * sent while Redis may not be answering, whose {@code NOSCRIPT} would come too late to be resent.
     */
    CompletableFuture<@Nullable Long> runBySource(
            @Nullable String reader,
            BiFunction<List<String>, Boolean, ScriptCall<@Nullable Long>> call,
            Supplier<CompletableFuture<@Nullable Long>> undecided) {
        return attempt(reader, call, undecided, withOwn(lastSeen, reader), ROUNDS, true);
    }

    private CompletableFuture<@Nullable Long> attempt(
            @Nullable String reader,
            BiFunction<List<String>, Boolean, ScriptCall<@Nullable Long>> call,
            Supplier<CompletableFuture<@Nullable Long>> undecided,
            List<String> declared,
            int roundsLeft,
            boolean bySource) {
        ScriptCall<@Nullable Long> script = call.apply(declared, roundsLeft > 1);
        CompletableFuture<@Nullable Long> sent =
                bySource ? script.runBySource(engine.scripts()) : script.run(engine.scripts());
        return sent.thenCompose(reply -> {
            if (reply == null || reply != ReadHoldTimeouts.UNDECLARED) {
                return CompletableFuture.completedFuture(reply);
            }
            if (roundsLeft <= 1) {
                return undecided.get();
            }
            return engine.connector()
                    .commands()
                    .hgetall(key)
                    .toCompletableFuture()
                    .thenCompose(fields -> {
                        List<String> seen = readers(fields);
                        lastSeen = seen;
                        return attempt(
                                reader,
                                call,
                                undecided,
                                RedissonLayout.readHoldTimeouts(key, fields, reader),
                                roundsLeft - 1,
                                bySource);
                    });
        });
    }

    private List<String> readers(Map<String, String> fields) {
        return RedissonLayout.readHoldTimeouts(key, fields, null);
    }

    /** @return the keys last seen plus those of the caller's own holds up to its next one */
    private List<String> withOwn(List<String> seen, @Nullable String reader) {
        if (reader == null) {
            return seen;
        }
        Hold own = engine.holds().get(key, reader);
        Set<String> keys = new LinkedHashSet<>(seen);
        keys.addAll(RedissonLayout.readHoldTimeouts(key, reader, own == null ? 1 : own.count() + 1));
        return new ArrayList<>(keys);
    }
}
