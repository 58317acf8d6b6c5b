package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Releases one write hold, downgrading to the owner's read holds if any; replies as {@link ReadRelease}.
 * Components are the script's KEYS, then its ARGV, in the order its header names them.
 */
public record WriteRelease(
        String lockKey,
        String readWriteChannel,
        String unlockLatch,
        String wakeAllMessage,
        long leaseMillis,
        String writerField,
        long latchMillis,
        String publishCommand)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.RW_WRITE_RELEASE,
            List.of("lock key", "read-write channel", "unlock latch"),
            List.of("wake-all message", "lease in ms", "writer field", "latch lifetime in ms", "publish command"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {lockKey, readWriteChannel, unlockLatch};
    }

    @Override
    public String[] args() {
        return new String[] {
            wakeAllMessage, Long.toString(leaseMillis), writerField, Long.toString(latchMillis), publishCommand
        };
    }
}
