package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Takes or re-enters the write side, claiming it for a caller that waits; replies {@code null} when acquired, else how long to park in ms.
 * Components are the script's KEYS, then its ARGV, in the order its header names them; the lock's
 * channels are named by the script from the lock key, and so is the writer's grant record except in a
 * cluster, where it is declared ({@code ""} elsewhere); the read hold timeouts it decides on are
 * declared (see {@link ReadHoldTimeouts}).
 */
public record WriteAcquire(
        String lockKey,
        String waitingWriters,
        String grantRecord,
        List<String> readHoldTimeouts,
        long leaseMillis,
        String writerField,
        long waitMillis,
        long claimTimeoutMillis,
        long parkMillis,
        String attemptId,
        String mode)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.RW_WRITE_ACQUIRE,
            List.of("lock key", "waiting writers", "grant record", "read hold timeouts"),
            List.of(
                    "lease in ms",
                    "writer field",
                    "remaining wait in ms",
                    "claim timeout in ms",
                    "longest park in ms",
                    "attempt id",
                    "mode"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return ReadHoldTimeouts.keys(readHoldTimeouts, lockKey, waitingWriters, grantRecord);
    }

    @Override
    public String[] args() {
        return new String[] {
            DecimalText.of(leaseMillis),
            writerField,
            Long.toString(waitMillis),
            DecimalText.of(claimTimeoutMillis),
            DecimalText.of(parkMillis),
            attemptId,
            mode
        };
    }
}
