package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Takes or re-enters a fenced lock; replies {@code [1, token]} when acquired, else {@code [0, remaining lease]}.
 * Components are the script's KEYS, then its ARGV, in the order its header names them; the lock's
 * companion keys and channels are named by the script from the lock key, except the token counter,
 * always declared, and the grant record, which is declared in a cluster when an attempt id is given
 * ({@code null} elsewhere).
 */
public record FencedAcquire(
        String lockKey,
        String tokenKey,
        @Nullable String grantRecord,
        long leaseMillis,
        String ownerField,
        String attemptId,
        String mode)
        implements ScriptCall<List<Long>> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.FENCED_ACQUIRE,
            List.of("lock key", "token counter", "grant record"),
            List.of("lease in ms", "owner field", "attempt id", "mode"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return grantRecord == null ? new String[] {lockKey, tokenKey} : new String[] {lockKey, tokenKey, grantRecord};
    }

    @Override
    public String[] args() {
        return new String[] {DecimalText.of(leaseMillis), ownerField, attemptId, mode};
    }
}
