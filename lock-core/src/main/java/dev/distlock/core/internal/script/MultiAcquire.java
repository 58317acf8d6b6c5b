package dev.distlock.core.internal.script;

import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Takes every member of a multi lock on one server (one cluster slot) at once, or none; replies an
 * empty list when acquired, else the index (from 1) of the first member held by someone else and
 * its remaining lease in ms. Member {@code i} is {@code KEYS[i]} with owner field {@code ARGV[i+4]}.
 *
 * @param lockKeys lock key of each member
 * @param leaseMillis the lease every member gets
 * @param attemptId recorded as each member's grant where this attempt takes it afresh
 * @param acquireModes one acquire mode character per member ({@code 0}, {@code 1} or {@code 2})
 * @param listingSlackMillis listing slack when the caller waits, or {@code null}
 * @param ownerFields owner field of each member, in the order of {@code lockKeys}
 * @param grantRecords grant record of each member, declared in a cluster; empty elsewhere
 */
public record MultiAcquire(
        List<String> lockKeys,
        long leaseMillis,
        String attemptId,
        String acquireModes,
        @Nullable String listingSlackMillis,
        List<String> ownerFields,
        List<String> grantRecords)
        implements ScriptCall<List<Long>> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.MULTI_ACQUIRE,
            List.of("lock key of member i", "grant record of member i"),
            List.of("lease in ms", "attempt id", "acquire modes", "listing slack in ms", "owner field of member i"));

    /** Checks that every key has its owner field and its mode. */
    public MultiAcquire {
        lockKeys = List.copyOf(lockKeys);
        ownerFields = List.copyOf(ownerFields);
        grantRecords = List.copyOf(grantRecords);
        if (!grantRecords.isEmpty() && grantRecords.size() != lockKeys.size()) {
            throw new IllegalArgumentException("'grantRecords' must be empty or have one entry per lock key: "
                    + lockKeys.size() + " keys, " + grantRecords.size() + " grant records");
        }
        if (lockKeys.size() != ownerFields.size() || lockKeys.size() != acquireModes.length()) {
            throw new IllegalArgumentException("'ownerFields' and 'acquireModes' must have one entry per lock key: "
                    + lockKeys.size() + " keys, " + ownerFields.size() + " fields, " + acquireModes.length()
                    + " modes");
        }
    }

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return Stream.concat(lockKeys.stream(), grantRecords.stream()).toArray(String[]::new);
    }

    @Override
    public String[] args() {
        return Stream.concat(
                        Stream.of(
                                DecimalText.of(leaseMillis),
                                attemptId,
                                acquireModes,
                                listingSlackMillis == null ? "" : listingSlackMillis),
                        ownerFields.stream())
                .toArray(String[]::new);
    }
}
