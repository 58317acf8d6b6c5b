package dev.distlock.core.internal.script;

import java.util.List;

/**
 * Lists the permits of a semaphore taken now ({@code semaphore-taken}): a flat list of each
 * permit's id (hex text) and the ms its lease has left, soonest expiry first.
 *
 * @param timeoutKey the sorted set of taken permit ids scored by expiry
 */
public record SemaphoreTaken(String timeoutKey) implements ScriptCall<List<Object>> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE =
            new ScriptSignature(Scripts.SEMAPHORE_TAKEN, List.of("timeout key"), List.of());

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
        return new String[0];
    }
}
