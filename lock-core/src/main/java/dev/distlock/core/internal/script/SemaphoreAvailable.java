package dev.distlock.core.internal.script;

import java.util.List;

/**
 * Counts the available permits of a semaphore after giving back those whose lease ended
 * ({@code semaphore-available}).
 *
 * @param semaphoreKey the key counting the available permits
 * @param timeoutKey the sorted set of taken permit ids scored by expiry
 * @param channel the semaphore's channel
 * @param publishCommand {@code PUBLISH} or {@code SPUBLISH}
 */
public record SemaphoreAvailable(String semaphoreKey, String timeoutKey, String channel, String publishCommand)
        implements ScriptCall<Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.SEMAPHORE_AVAILABLE,
            List.of("semaphore key", "timeout key", "semaphore channel"),
            List.of("publish command"));

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
        return new String[] {publishCommand};
    }
}
