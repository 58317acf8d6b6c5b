package dev.distlock.core.internal.script;

import java.util.List;

/**
 * Passes a targeted wake-up on to another waiting client.
 * Components are the script's KEYS, then its ARGV, in the order its header names them.
 */
public record ReentrantPassWakeup(
        String lockKey,
        String unlockChannel,
        String waitingClients,
        String unlockMessage,
        String wakePrefix,
        String passingClient,
        String publishCommand)
        implements ScriptCall<Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.REENTRANT_PASS_WAKEUP,
            List.of("lock key", "unlock channel", "waiting clients"),
            List.of("unlock message", "wake-up channel prefix", "passing client", "publish command"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {lockKey, unlockChannel, waitingClients};
    }

    @Override
    public String[] args() {
        return new String[] {unlockMessage, wakePrefix, passingClient, publishCommand};
    }
}
