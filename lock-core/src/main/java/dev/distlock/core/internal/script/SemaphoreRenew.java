package dev.distlock.core.internal.script;

import java.util.List;
import java.util.stream.Stream;

/**
 * Renews watchdog permits of one semaphore ({@code semaphore-renew}). Replies one value per
 * permit: {@code 1} renewed, {@code 0} no longer taken.
 *
 * @param timeoutKey the sorted set of taken permit ids scored by expiry
 * @param leaseMillis the lease every renewed permit gets, from the server's now
 * @param permitIds the permits' ids, hex text
 */
public record SemaphoreRenew(String timeoutKey, long leaseMillis, List<String> permitIds)
        implements ScriptCall<List<Long>> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE =
            new ScriptSignature(Scripts.SEMAPHORE_RENEW, List.of("timeout key"), List.of("lease in ms", "permit id i"));

    /** Copies the ids. */
    public SemaphoreRenew {
        permitIds = List.copyOf(permitIds);
    }

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {timeoutKey};
    }

    @Override
    public String[] args() {
        return Stream.concat(Stream.of(Long.toString(leaseMillis)), permitIds.stream())
                .toArray(String[]::new);
    }
}
