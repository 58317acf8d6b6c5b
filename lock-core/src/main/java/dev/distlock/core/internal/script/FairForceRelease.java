package dev.distlock.core.internal.script;

import java.util.List;

/**
 * Deletes a fair lock whoever holds it, telling the queue head; replies {@code 1} when one was deleted.
 * Components are the script's KEYS, then its ARGV, in the order its header names them.
 */
public record FairForceRelease(
        String lockKey,
        String queue,
        String deadlines,
        String waiterChannelPrefix,
        String wakeMessage,
        String publishCommand)
        implements ScriptCall<Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.FAIR_FORCE_RELEASE,
            List.of("lock key", "queue", "deadlines", "waiter channel prefix"),
            List.of("wake-up message", "publish command"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {lockKey, queue, deadlines, waiterChannelPrefix};
    }

    @Override
    public String[] args() {
        return new String[] {wakeMessage, publishCommand};
    }
}
