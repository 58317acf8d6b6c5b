package dev.distlock.core.internal.script;

import java.util.List;

/**
 * Takes one permit of a semaphore ({@code semaphore-acquire}). Replies {@code [1, permits still
 * available]} when taken, else {@code [0, earliest expiry of a taken permit in ms since the epoch,
 * or -1]}.
 *
 * @param semaphoreKey the key counting the available permits
 * @param timeoutKey the sorted set of taken permit ids scored by expiry
 * @param channel the semaphore's channel
 * @param permitId the new permit's id, hex text
 * @param expiryMillis its expiry, ms since the epoch
 * @param nowMillis now, ms since the epoch
 * @param publishCommand {@code PUBLISH} or {@code SPUBLISH}
 */
public record SemaphoreAcquire(
        String semaphoreKey,
        String timeoutKey,
        String channel,
        String permitId,
        long expiryMillis,
        long nowMillis,
        String publishCommand)
        implements ScriptCall<List<Long>> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.SEMAPHORE_ACQUIRE,
            List.of("semaphore key", "timeout key", "semaphore channel"),
            List.of("permit id", "expiry", "now", "publish command"));

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
        return new String[] {permitId, Long.toString(expiryMillis), Long.toString(nowMillis), publishCommand};
    }
}
