package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Takes or re-enters a fair lock, or queues the caller; replies {@code null} when acquired, else how long to park in ms.
 * Components are the script's KEYS, then its ARGV, in the order its header names them.
 */
public record FairAcquire(
        String lockKey,
        String queue,
        String deadlines,
        String waiterChannelPrefix,
        long leaseMillis,
        String ownerField,
        long remainingWaitMillis,
        long waiterTimeoutMillis,
        long longestParkMillis,
        String wakeMessage,
        String publishCommand)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.FAIR_ACQUIRE,
            List.of("lock key", "queue", "deadlines", "waiter channel prefix"),
            List.of(
                    "lease in ms",
                    "owner field",
                    "remaining wait in ms",
                    "waiter timeout in ms",
                    "longest park in ms",
                    "wake-up message",
                    "publish command"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {lockKey, queue, deadlines, waiterChannelPrefix};
    }

    @Override
    public String[] args() {
        return new String[] {
            Long.toString(leaseMillis),
            ownerField,
            Long.toString(remainingWaitMillis),
            Long.toString(waiterTimeoutMillis),
            Long.toString(longestParkMillis),
            wakeMessage,
            publishCommand
        };
    }
}
