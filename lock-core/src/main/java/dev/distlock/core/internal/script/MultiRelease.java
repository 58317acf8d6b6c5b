package dev.distlock.core.internal.script;

import java.util.List;

/**
 * Releases one hold of each member of a multi lock on one server (one cluster slot), each at most
 * once per request; replies one value per member: {@code -1} (held nothing), {@code 0} (holds
 * remain) or {@code 1} (released) as a {@link Long}, or the error text as a {@link String} when that
 * member could not be released (its key holds another type): one such member does not keep the
 * others from being released. Member {@code i} is {@code KEYS[i]} with its lease, owner field
 * and request number at {@code ARGV[3i]}, {@code ARGV[3i+1]} and {@code ARGV[3i+2]}.
 *
 * @param lockKeys lock key of each member
 * @param latchMillis how long each unlock latch remembers its outcome
 * @param wakeFlags as {@link ReentrantRelease}'s
 * @param leases lease in ms of each member, kept while its holds remain
 * @param ownerFields owner field of each member
 * @param requestNumbers request number of each member
 * @param declared in a cluster, the unlock latch of each member, then its grant record; empty elsewhere
 */
public record MultiRelease(
        List<String> lockKeys,
        long latchMillis,
        String wakeFlags,
        List<Long> leases,
        List<String> ownerFields,
        List<String> requestNumbers,
        List<String> declared)
        implements ScriptCall<List<Object>> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.MULTI_RELEASE,
            List.of("lock key of member i", "unlock latch of member i", "grant record of member i"),
            List.of(
                    "latch lifetime in ms",
                    "wake flags",
                    "lease in ms of member i",
                    "owner field of member i",
                    "request number of member i"));

    /** Checks that every key has its lease, owner field and request number. */
    public MultiRelease {
        lockKeys = List.copyOf(lockKeys);
        leases = List.copyOf(leases);
        ownerFields = List.copyOf(ownerFields);
        requestNumbers = List.copyOf(requestNumbers);
        declared = List.copyOf(declared);
        int members = lockKeys.size();
        if (!declared.isEmpty() && declared.size() != 2 * members) {
            throw new IllegalArgumentException("'declared' must be empty or have two entries per lock key: " + members
                    + " keys, " + declared.size() + " declared");
        }
        if (leases.size() != members || ownerFields.size() != members || requestNumbers.size() != members) {
            throw new IllegalArgumentException(
                    "'leases', 'ownerFields' and 'requestNumbers' must have one entry per lock key: " + members
                            + " keys, " + leases.size() + " leases, " + ownerFields.size() + " fields, "
                            + requestNumbers.size() + " request numbers");
        }
    }

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        String[] keys = new String[lockKeys.size() + declared.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = i < lockKeys.size() ? lockKeys.get(i) : declared.get(i - lockKeys.size());
        }
        return keys;
    }

    @Override
    public String[] args() {
        String[] args = new String[2 + 3 * lockKeys.size()];
        args[0] = DecimalText.of(latchMillis);
        args[1] = wakeFlags;
        for (int i = 0; i < lockKeys.size(); i++) {
            // Lua's ARGV[3i], ARGV[3i+1], ARGV[3i+2] for member i counted from 1.
            int base = 3 * (i + 1) - 1;
            args[base] = DecimalText.of(leases.get(i));
            args[base + 1] = ownerFields.get(i);
            args[base + 2] = requestNumbers.get(i);
        }
        return args;
    }
}
