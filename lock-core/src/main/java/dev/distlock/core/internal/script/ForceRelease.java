package dev.distlock.core.internal.script;

import java.util.List;

/**
 * Deletes a reentrant lock whoever holds it; replies {@code 1} when one was deleted.
 * Components are the script's KEYS, then its ARGV, in the order its header names them.
 */
public record ForceRelease(String lockKey, String unlockChannel, String unlockMessage, String publishCommand)
        implements ScriptCall<Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.FORCE_RELEASE, List.of("lock key", "unlock channel"), List.of("unlock message", "publish command"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {lockKey, unlockChannel};
    }

    @Override
    public String[] args() {
        return new String[] {unlockMessage, publishCommand};
    }
}
