package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Releases one read hold; replies {@code null} (held none), {@code 0} (some remain) or {@code 1} (none left).
 * Components are the script's KEYS, then its ARGV, in the order its header names them.
 */
public record ReadRelease(
        String lockKey,
        String readWriteChannel,
        String unlockLatch,
        String wakeAllMessage,
        String readerField,
        long latchMillis,
        String publishCommand)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.RW_READ_RELEASE,
            List.of("lock key", "read-write channel", "unlock latch"),
            List.of("wake-all message", "reader field", "latch lifetime in ms", "publish command"));

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
        return new String[] {wakeAllMessage, readerField, Long.toString(latchMillis), publishCommand};
    }
}
