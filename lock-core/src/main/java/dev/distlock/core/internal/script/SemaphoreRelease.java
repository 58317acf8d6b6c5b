package dev.distlock.core.internal.script;

import java.util.List;

/**
 * Gives back one permit of a semaphore by its id ({@code semaphore-release}). Replies {@code 1}
 * when given back, {@code -1} when it was given back although its lease had ended, {@code 0} when
 * no such permit is taken.
 *
 * @param semaphoreKey the key counting the available permits
 * @param timeoutKey the sorted set of taken permit ids scored by expiry
 * @param channel the semaphore's channel
 * @param permitId the permit's id, hex text
 * @param publishCommand {@code PUBLISH} or {@code SPUBLISH}
 */
public record SemaphoreRelease(
        String semaphoreKey, String timeoutKey, String channel, String permitId, String publishCommand)
        implements ScriptCall<Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.SEMAPHORE_RELEASE,
            List.of("semaphore key", "timeout key", "semaphore channel"),
            List.of("permit id", "publish command"));

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
        return new String[] {permitId, publishCommand};
    }
}
