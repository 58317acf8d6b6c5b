package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Takes, re-enters or queues for a fair lock; replies {@code null} when acquired, else how long to park in ms.
 * Components are the script's KEYS, then its ARGV, in the order its header names them; the lock's
 * companion keys and channels are named by the script from the lock key, except the queue, its
 * deadlines and the grant record, which are declared in a cluster ({@code null} elsewhere; the grant
 * record only when an attempt id is given).
 */
public record FairAcquire(
        String lockKey,
        @Nullable String queue,
        @Nullable String deadlines,
        @Nullable String grantRecord,
        long leaseMillis,
        String ownerField,
        long waitMillis,
        long waiterTimeoutMillis,
        long parkMillis,
        String publishFlags,
        String attemptId,
        String mode)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.FAIR_ACQUIRE,
            List.of("lock key", "queue", "deadlines", "grant record"),
            List.of(
                    "lease in ms",
                    "owner field",
                    "remaining wait in ms",
                    "waiter timeout in ms",
                    "longest park in ms",
                    "publish flags",
                    "attempt id",
                    "mode"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        if (queue == null || deadlines == null) {
            return new String[] {lockKey};
        }
        return grantRecord == null
                ? new String[] {lockKey, queue, deadlines}
                : new String[] {lockKey, queue, deadlines, grantRecord};
    }

    @Override
    public String[] args() {
        return new String[] {
            DecimalText.of(leaseMillis),
            ownerField,
            Long.toString(waitMillis),
            DecimalText.of(waiterTimeoutMillis),
            DecimalText.of(parkMillis),
            publishFlags,
            attemptId,
            mode
        };
    }
}
