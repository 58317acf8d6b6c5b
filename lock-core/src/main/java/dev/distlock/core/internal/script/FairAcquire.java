package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Takes, re-enters or queues for a fair lock; replies {@code null} when acquired, else how long to park in ms.
 * Components are the script's KEYS, then its ARGV, in the order its header names them; the lock's
 * companion keys and channels are named by the script from the lock key.
 */
public record FairAcquire(
        String lockKey,
        long leaseMillis,
        String ownerField,
        long waitMillis,
        long waiterTimeoutMillis,
        long parkMillis,
        String publishFlags)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.FAIR_ACQUIRE,
            List.of("lock key"),
            List.of(
                    "lease in ms",
                    "owner field",
                    "remaining wait in ms",
                    "waiter timeout in ms",
                    "longest park in ms",
                    "publish flags"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {lockKey};
    }

    @Override
    public String[] args() {
        return new String[] {
            DecimalText.of(leaseMillis),
            ownerField,
            Long.toString(waitMillis),
            DecimalText.of(waiterTimeoutMillis),
            DecimalText.of(parkMillis),
            publishFlags
        };
    }
}
