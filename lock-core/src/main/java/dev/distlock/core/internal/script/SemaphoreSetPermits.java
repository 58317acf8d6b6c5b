package dev.distlock.core.internal.script;

import java.util.List;

/**
 * Sets the permits of a semaphore that has none set yet ({@code semaphore-set-permits}). Replies
 * {@code 1} when set, {@code 0} when they were set already.
 *
 * @param semaphoreKey the key counting the available permits
 * @param channel the semaphore's channel
 * @param permits the number of permits
 * @param publishCommand {@code PUBLISH} or {@code SPUBLISH}
 */
public record SemaphoreSetPermits(String semaphoreKey, String channel, int permits, String publishCommand)
        implements ScriptCall<Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.SEMAPHORE_SET_PERMITS,
            List.of("semaphore key", "semaphore channel"),
            List.of("permits", "publish command"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {semaphoreKey, channel};
    }

    @Override
    public String[] args() {
        return new String[] {Integer.toString(permits), publishCommand};
    }
}
