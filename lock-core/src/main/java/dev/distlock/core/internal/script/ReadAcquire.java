package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Takes or re-enters the read side; replies {@code null} when acquired, else how long to park in ms.
 * Components are the script's KEYS, then its ARGV, in the order its header names them; the lock's
 * channels are named by the script from the lock key, and so is the reader's grant record except in a
 * cluster, where it is declared ({@code ""} elsewhere); the read hold timeouts it decides on are
 * declared (see {@link ReadHoldTimeouts}).
 */
public record ReadAcquire(
        String lockKey,
        String waitingWriters,
        String grantRecord,
        List<String> readHoldTimeouts,
        long leaseMillis,
        String readerField,
        String attemptId,
        String mode)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.RW_READ_ACQUIRE,
            List.of("lock key", "waiting writers", "grant record", "read hold timeouts"),
            List.of("lease in ms", "reader field", "attempt id", "mode"));

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
        return new String[] {DecimalText.of(leaseMillis), readerField, attemptId, mode};
    }
}
