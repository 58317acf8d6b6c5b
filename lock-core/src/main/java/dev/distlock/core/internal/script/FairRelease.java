package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Releases one hold of a fair lock, at most once per request; replies {@code null} (held nothing), {@code 0} (holds remain) or {@code 1} (released).
 * Components are the script's KEYS, then its ARGV, in the order its header names them; the lock's
 * companion keys and channels are named by the script from the lock key, except the queue, its
 * deadlines, the unlock latch and the grant record, which are declared in a cluster ({@code null}
 * elsewhere).
 */
public record FairRelease(
        String lockKey,
        @Nullable String queue,
        @Nullable String deadlines,
        @Nullable String unlockLatch,
        @Nullable String grantRecord,
        long leaseMillis,
        String ownerField,
        String requestNumber,
        long latchMillis,
        String publishFlags,
        String lostAttempts)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.FAIR_RELEASE,
            List.of("lock key", "queue", "deadlines", "unlock latch", "grant record"),
            List.of(
                    "lease in ms",
                    "owner field",
                    "request number",
                    "latch lifetime in ms",
                    "publish flags",
                    "lost attempts"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        if (queue == null || deadlines == null || unlockLatch == null || grantRecord == null) {
            return new String[] {lockKey};
        }
        return new String[] {lockKey, queue, deadlines, unlockLatch, grantRecord};
    }

    @Override
    public String[] args() {
        return new String[] {
            DecimalText.of(leaseMillis),
            ownerField,
            requestNumber,
            DecimalText.of(latchMillis),
            publishFlags,
            lostAttempts
        };
    }
}
