package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Takes or re-enters the write side, claiming it while waiting; replies {@code null} when acquired, else how long to park in ms.
 * Components are the script's KEYS, then its ARGV, in the order its header names them.
 */
public record WriteAcquire(
        String lockKey,
        String waitingWriters,
        long leaseMillis,
        String writerField,
        long remainingWaitMillis,
        long claimTimeoutMillis,
        long longestParkMillis)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.RW_WRITE_ACQUIRE,
            List.of("lock key", "waiting writers"),
            List.of(
                    "lease in ms",
                    "writer field",
                    "remaining wait in ms",
                    "claim timeout in ms",
                    "longest park in ms"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {lockKey, waitingWriters};
    }

    @Override
    public String[] args() {
        return new String[] {
            Long.toString(leaseMillis),
            writerField,
            Long.toString(remainingWaitMillis),
            Long.toString(claimTimeoutMillis),
            Long.toString(longestParkMillis)
        };
    }
}
