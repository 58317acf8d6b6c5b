package dev.distlock.core.internal.acquire;

import dev.distlock.core.internal.pubsub.ChannelWaiters;
import org.jspecify.annotations.Nullable;

/**
 * What one run of a kind's acquire script needs to know.
 *
 * @param leaseMillis lease in ms (never -1: the watchdog lease is substituted)
 * @param ownerId owner
 * @param waitMillis the caller's remaining wait in ms: {@code 0} when it will not wait (do not
 *     queue it), {@code -1} when it waits as long as needed
 * @param waiting the local waiters the caller has joined, or {@code null} before it joined any
 * @param call the acquisition this attempt belongs to, or {@code null} for a one-off attempt
 */
public record Attempt(
        long leaseMillis,
        long ownerId,
        long waitMillis,
        @Nullable ChannelWaiters waiting,
        @Nullable SingleKeyAcquisition call) {

    /**
     * Returns a one-off attempt that does not wait.
     * @param leaseMillis lease in ms
     * @param ownerId owner
     * @return the attempt
     */
    public static Attempt once(long leaseMillis, long ownerId) {
        return new Attempt(leaseMillis, ownerId, 0, null, null);
    }
}
