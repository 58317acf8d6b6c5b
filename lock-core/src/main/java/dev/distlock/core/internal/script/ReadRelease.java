package dev.distlock.core.internal.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Releases one read hold, at most once per request; replies {@code null} (held nothing), {@code 0} (holds remain) or {@code 1} (none left).
 * Components are the script's KEYS, then its ARGV, in the order its header names them; the lock's
 * companions and channels are named by the script from the lock key, except the unlock latch and the
 * reader's grant record, declared in a cluster ({@code ""} elsewhere); the read hold timeouts it
 * decides on are declared (see {@link ReadHoldTimeouts}).
 */
public record ReadRelease(
        String lockKey,
        String unlockLatch,
        String grantRecord,
        List<String> readHoldTimeouts,
        String readerField,
        String requestNumber,
        long latchMillis,
        String publishFlags,
        boolean tidy,
        boolean unlock,
        String lostAttempts)
        implements ScriptCall<@Nullable Long> {

    /** The script and the names its header gives its KEYS and ARGV. */
    public static final ScriptSignature SIGNATURE = new ScriptSignature(
            Scripts.RW_READ_RELEASE,
            List.of("lock key", "unlock latch", "grant record", "read hold timeouts"),
            List.of(
                    "reader field",
                    "request number",
                    "latch lifetime in ms",
                    "publish flags",
                    "tidy",
                    "which hold",
                    "lost attempts"));

    @Override
    public ScriptSignature signature() {
        return SIGNATURE;
    }

    @Override
    public String[] keys() {
        return ReadHoldTimeouts.keys(readHoldTimeouts, lockKey, unlockLatch, grantRecord);
    }

    @Override
    public String[] args() {
        return new String[] {
            readerField,
            requestNumber,
            DecimalText.of(latchMillis),
            publishFlags,
            tidy ? "1" : "",
            unlock ? "first" : "newest",
            lostAttempts
        };
    }
}
