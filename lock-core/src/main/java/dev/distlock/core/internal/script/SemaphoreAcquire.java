package dev.distlock.core.internal.script;

import java.util.List;

/**
 * Takes one permit of a semaphore ({@code semaphore-acquire}), its expiry on the server's clock.
 * Replies {@code [1, permits still available]} when taken, else {@code [0, ms until the earliest
 * expiry of a taken permit, or -1]}.
 *
 * @param semaphoreKey the key counting the available permits
 * @param timeoutKey the sorted set of taken permit ids scored by expiry
 * @param channel the semaphore's channel
 * @param permitId the new permit's id, hex text
 * @param leaseMillis its lease
 * @param publishCommand {@code PUBLISH} or {@code SPUBLISH}
 */
public record SemaphoreAcquire(
        String semaphoreKey,
        String timeoutKey,
        String channel,
        String permitId,
        long leaseMillis,
        String publishCommand)
        implements ScriptCall<List<Long>> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.SEMAPHORE_ACQUIRE,
            List.of("semaphore key", "timeout key", "semaphore channel"),
            List.of("permit id", "lease in ms", "publish command"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {semaphoreKey, timeoutKey, channel};
    }

    @Override
    public String[] args() {
        return new String[] {permitId, Long.toString(leaseMillis), publishCommand};
    }
}
