package dev.distlock.core.internal.script;

import java.util.List;

/**
 * Withdraws the claim of a writer that gave up; replies {@code 1} when a claim was withdrawn.
 * Components are the script's KEYS, then its ARGV, in the order its header names them.
 */
public record WriteAbandon(
        String lockKey,
        String waitingWriters,
        String readWriteChannel,
        String wakeAllMessage,
        String writerField,
        String publishCommand)
        implements ScriptCall<Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.RW_WRITE_ABANDON,
            List.of("lock key", "waiting writers", "read-write channel"),
            List.of("wake-all message", "writer field", "publish command"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {lockKey, waitingWriters, readWriteChannel};
    }

    @Override
    public String[] args() {
        return new String[] {wakeAllMessage, writerField, publishCommand};
    }
}
