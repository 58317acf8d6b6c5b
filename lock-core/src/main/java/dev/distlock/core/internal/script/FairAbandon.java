package dev.distlock.core.internal.script;

import java.util.List;

/**
 * Removes a fair lock waiter that gave up; replies {@code 1} when it was queued.
 * Components are the script's KEYS, then its ARGV, in the order its header names them.
 */
public record FairAbandon(
        String lockKey,
        String queue,
        String deadlines,
        String waiterChannelPrefix,
        String wakeMessage,
        String ownerField,
        long waiterTimeoutMillis,
        String publishCommand)
        implements ScriptCall<Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.FAIR_ABANDON,
            List.of("lock key", "queue", "deadlines", "waiter channel prefix"),
            List.of("wake-up message", "owner field", "waiter timeout in ms", "publish command"));

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
        return new String[] {wakeMessage, ownerField, Long.toString(waiterTimeoutMillis), publishCommand};
    }
}
