package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Releases one hold of a reentrant lock, at most once per request; replies {@code null} (held nothing), {@code 0} (holds remain) or {@code 1} (released).
 * Components are the script's KEYS, then its ARGV, in the order its header names them; the lock's
 * companion keys and channels are named by the script from the lock key.
 */
public record ReentrantRelease(
        String lockKey,
        long leaseMillis,
        String ownerField,
        String requestNumber,
        long latchMillis,
        String wakeFlags,
        String lostAttempts)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.REENTRANT_RELEASE,
            List.of("lock key"),
            List.of(
                    "lease in ms",
                    "owner field",
                    "request number",
                    "latch lifetime in ms",
                    "wake flags",
                    "lost attempts"));

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
            DecimalText.of(leaseMillis), ownerField, requestNumber, DecimalText.of(latchMillis), wakeFlags, lostAttempts
        };
    }
}
