package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Takes or re-enters a reentrant lock; replies {@code null} when acquired, else the holder's remaining lease in ms.
 * Components are the script's KEYS, then its ARGV, in the order its header names them; the lock's
 * companion keys and channels are named by the script from the lock key, except the grant record,
 * which is declared in a cluster when an attempt id is given ({@code null} elsewhere).
 */
public record ReentrantAcquire(
        String lockKey,
        @Nullable String grantRecord,
        long leaseMillis,
        String ownerField,
        String acquireMode,
        @Nullable String listingSlackMillis,
        @Nullable String attemptId)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.REENTRANT_ACQUIRE,
            List.of("lock key", "grant record"),
            List.of("lease in ms", "owner field", "acquire mode", "listing slack in ms", "attempt id"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return grantRecord == null ? new String[] {lockKey} : new String[] {lockKey, grantRecord};
    }

    @Override
    public String[] args() {
        return new String[] {
            DecimalText.of(leaseMillis),
            ownerField,
            acquireMode,
            listingSlackMillis == null ? "" : listingSlackMillis,
            attemptId == null ? "" : attemptId
        };
    }
}
