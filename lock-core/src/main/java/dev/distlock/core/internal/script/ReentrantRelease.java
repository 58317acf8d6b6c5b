package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Releases one hold of a reentrant lock, at most once per request; replies {@code null} (held nothing), {@code 0} (holds remain) or {@code 1} (released).
 * Components are the script's KEYS, then its ARGV, in the order its header names them.
 */
public record ReentrantRelease(
        String lockKey,
        String unlockChannel,
        String unlockLatch,
        String waitingClients,
        String unlockMessage,
        long leaseMillis,
        String ownerField,
        long latchMillis,
        String wakePrefix,
        String publishCommand)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.REENTRANT_RELEASE,
            List.of("lock key", "unlock channel", "unlock latch", "waiting clients"),
            List.of(
                    "unlock message",
                    "lease in ms",
                    "owner field",
                    "latch lifetime in ms",
                    "wake-up channel prefix",
                    "publish command"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {lockKey, unlockChannel, unlockLatch, waitingClients};
    }

    @Override
    public String[] args() {
        return new String[] {
            unlockMessage,
            Long.toString(leaseMillis),
            ownerField,
            Long.toString(latchMillis),
            wakePrefix,
            publishCommand
        };
    }
}
