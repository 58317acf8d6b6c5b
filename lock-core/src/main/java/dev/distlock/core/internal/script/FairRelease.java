package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Releases one hold of a fair lock, telling only the queue head; replies as {@link ReentrantRelease}.
 * Components are the script's KEYS, then its ARGV, in the order its header names them.
 */
public record FairRelease(
        String lockKey,
        String queue,
        String deadlines,
        String waiterChannelPrefix,
        String unlockLatch,
        String wakeMessage,
        long leaseMillis,
        String ownerField,
        long latchMillis,
        String publishCommand)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.FAIR_RELEASE,
            List.of("lock key", "queue", "deadlines", "waiter channel prefix", "unlock latch"),
            List.of("wake-up message", "lease in ms", "owner field", "latch lifetime in ms", "publish command"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {lockKey, queue, deadlines, waiterChannelPrefix, unlockLatch};
    }

    @Override
    public String[] args() {
        return new String[] {
            wakeMessage, Long.toString(leaseMillis), ownerField, Long.toString(latchMillis), publishCommand
        };
    }
}
