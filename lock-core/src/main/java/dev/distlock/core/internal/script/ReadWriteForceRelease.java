package dev.distlock.core.internal.script;

import java.util.List;

/**
 * Deletes a read-write lock in one mode whoever holds it; replies {@code 1} when one was deleted.
 * Components are the script's KEYS, then its ARGV, in the order its header names them.
 */
public record ReadWriteForceRelease(
        String lockKey, String readWriteChannel, String wakeAllMessage, String mode, String publishCommand)
        implements ScriptCall<Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.RW_FORCE_RELEASE,
            List.of("lock key", "read-write channel"),
            List.of("wake-all message", "mode to delete", "publish command"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {lockKey, readWriteChannel};
    }

    @Override
    public String[] args() {
        return new String[] {wakeAllMessage, mode, publishCommand};
    }
}
