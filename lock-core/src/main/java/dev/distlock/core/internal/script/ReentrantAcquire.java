package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Takes or re-enters a reentrant lock; replies {@code null} when acquired, else the holder's remaining lease in ms.
 * Components are the script's KEYS, then its ARGV, in the order its header names them.
 */
public record ReentrantAcquire(
        String lockKey,
        String waitingClients,
        long leaseMillis,
        String ownerField,
        String acquireMode,
        String clientToList,
        String clientToUnlist,
        long listingSlackMillis)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.REENTRANT_ACQUIRE,
            List.of("lock key", "waiting clients"),
            List.of(
                    "lease in ms",
                    "owner field",
                    "acquire mode",
                    "client to list",
                    "client to unlist",
                    "listing slack in ms"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {lockKey, waitingClients};
    }

    @Override
    public String[] args() {
        return new String[] {
            Long.toString(leaseMillis),
            ownerField,
            acquireMode,
            clientToList,
            clientToUnlist,
            Long.toString(listingSlackMillis)
        };
    }
}
