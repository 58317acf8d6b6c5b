package dev.distlock.core.internal.script;

import java.util.List;

/**
 * Takes or re-enters a fenced lock; replies {@code [1, token]} when acquired, else {@code [0, remaining lease]}.
 * Components are the script's KEYS, then its ARGV, in the order its header names them; the lock's
 * companion keys and channels are named by the script from the lock key.
 */
public record FencedAcquire(String lockKey, String tokenKey, long leaseMillis, String ownerField)
        implements ScriptCall<List<Long>> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.FENCED_ACQUIRE, List.of("lock key", "token counter"), List.of("lease in ms", "owner field"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return new String[] {lockKey, tokenKey};
    }

    @Override
    public String[] args() {
        return new String[] {DecimalText.of(leaseMillis), ownerField};
    }
}
