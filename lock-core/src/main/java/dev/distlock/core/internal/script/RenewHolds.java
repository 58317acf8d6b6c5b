package dev.distlock.core.internal.script;

import java.util.List;
import java.util.stream.Stream;

/**
 * Renews many holds of one kind in one call ({@code renew}, {@code rw-read-renew} or
 * {@code rw-write-renew}): hold {@code i} is {@code KEYS[i]} with owner field {@code ARGV[i+1]}.
 * Replies one value per hold: {@code 1} renewed, {@code 0} no longer held, {@code -1} unknown.
 * Read holds also declare their owners' read hold timeout keys after the lock keys: the script
 * renews and decides on those only (see {@link ReadHoldTimeouts}).
 *
 * @param script one of the three renewal scripts
 * @param lockKeys lock key of each hold
 * @param leaseMillis the lease every renewed hold gets
 * @param ownerFields owner field of each hold, in the order of {@code lockKeys}
 * @param readHoldTimeouts the read hold timeout keys of the holds ({@code rw-read-renew} only)
 */
public record RenewHolds(
        LuaScript script,
        List<String> lockKeys,
        long leaseMillis,
        List<String> ownerFields,
        List<String> readHoldTimeouts)
        implements ScriptCall<List<Long>> {

    /** {@code renew}: holds of reentrant, fenced and fair locks. */
    public static final ScriptSignature RENEW = new ScriptSignature(
            Scripts.RENEW, List.of("lock key of hold i"), List.of("lease in ms", "owner field of hold i"));

    /** {@code rw-read-renew}: read holds. */
    public static final ScriptSignature READ_RENEW = new ScriptSignature(
            Scripts.RW_READ_RENEW,
            List.of("lock key of hold i", "read hold timeouts"),
            List.of("lease in ms", "reader field of hold i"));

    /** {@code rw-write-renew}: write holds. */
    public static final ScriptSignature WRITE_RENEW = new ScriptSignature(
            Scripts.RW_WRITE_RENEW, List.of("lock key of hold i"), List.of("lease in ms", "writer field of hold i"));

    /**
     * Renews holds that have no read hold timeouts (reentrant, fenced, fair and write holds).
     * @param script {@code renew} or {@code rw-write-renew}
     * @param lockKeys lock key of each hold
     * @param leaseMillis the lease every renewed hold gets
     * @param ownerFields owner field of each hold, in the order of {@code lockKeys}
     */
    public RenewHolds(LuaScript script, List<String> lockKeys, long leaseMillis, List<String> ownerFields) {
        this(script, lockKeys, leaseMillis, ownerFields, List.of());
    }

    /** Checks that the script is a renewal script and that every key has its owner field. */
    public RenewHolds {
        lockKeys = List.copyOf(lockKeys);
        ownerFields = List.copyOf(ownerFields);
        readHoldTimeouts = List.copyOf(readHoldTimeouts);
        if (lockKeys.size() != ownerFields.size()) {
            throw new IllegalArgumentException("'ownerFields' must have one field per lock key: " + lockKeys.size()
                    + " keys, " + ownerFields.size() + " fields");
        }
        if (!script.equals(Scripts.RENEW)
                && !script.equals(Scripts.RW_READ_RENEW)
                && !script.equals(Scripts.RW_WRITE_RENEW)) {
            throw new IllegalArgumentException("'script' must be a renewal script; was " + script.name());
        }
    }

    @Override
    public ScriptSignature signature() {
        return script.equals(Scripts.RW_READ_RENEW)
                ? READ_RENEW
                : script.equals(Scripts.RW_WRITE_RENEW) ? WRITE_RENEW : RENEW;
    }

    @Override
    public String[] keys() {
        return ReadHoldTimeouts.keys(readHoldTimeouts, lockKeys.toArray(String[]::new));
    }

    @Override
    public String[] args() {
        return Stream.concat(Stream.of(Long.toString(leaseMillis)), ownerFields.stream())
                .toArray(String[]::new);
    }
}
