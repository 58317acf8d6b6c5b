package dev.distlock.core.chaos;

import java.util.Arrays;
import java.util.List;

/**
 * One line of a client JVM's history. Times are wall-clock milliseconds
 * ({@link System#currentTimeMillis()}), which every process on one machine reads from the same
 * clock, so histories of different JVMs can be merged; see {@link ChaosChecker} for the error bound.
 *
 * <p>An acquisition is an {@code ACQ} operation: {@code INV} before the call, then {@code OK},
 * {@code FAIL} (the wait ran out) or {@code ERR} (an exception). Its release is a {@code REL}
 * operation with the same {@code op} id: {@code INV}, then {@code OK} or {@code ERR}. A nested
 * acquisition names the outer one in {@code parent}. {@code LOST} is a lease-loss report
 * ({@code LockListener#onLeaseLost}); {@code PROBE} a read of the hold's lease in Redis, under the
 * op id of the (outer) hold.
 *
 * @param time wall-clock millis when the event was recorded
 * @param jvm the client JVM, e.g. {@code w1}
 * @param op operation id, unique within the JVM ({@code -1} for {@code LOST})
 * @param parent the outer acquisition of a nested one, else {@code -1}
 * @param type what happened
 * @param phase invocation or outcome
 * @param kind lock kind
 * @param locks lock names (several for a multi lock)
 * @param owner {@code jvm:ownerId} (thread id or explicit owner id)
 * @param waitMillis the acquisition's wait
 * @param leaseMillis the acquisition's lease, {@code -1} for the watchdog
 * @param token fencing token, or {@code 0}
 * @param detail exception or other detail, {@code -} when none
 */
record Event(
        long time,
        String jvm,
        long op,
        long parent,
        Type type,
        Phase phase,
        Kind kind,
        List<String> locks,
        String owner,
        long waitMillis,
        long leaseMillis,
        long token,
        String detail) {

    enum Type {
        ACQ,
        REL,
        LOST,
        /**
         * A read of the hold's lease by the holder ({@link LeaseProbe}), recorded at the moment it was
         * sent: detail {@code held <ms left>}, {@code gone@<time of the reply>} or the error.
         */
        PROBE,
        /** An asynchronous acquisition cancelled by its caller, and whether a hold outlived it ({@link ChaosCancels}). */
        CANCEL
    }

    enum Phase {
        INV,
        OK,
        FAIL,
        ERR
    }

    enum Kind {
        REENTRANT,
        FENCED,
        FAIR,
        READ,
        WRITE,
        MULTI,
        /** A permit of a semaphore ({@link ChaosSemaphores}): not exclusive, counted against the permits. */
        SEMAPHORE;

        /** @return whether holds of this kind exclude every other owner */
        boolean exclusive() {
            return this != READ && this != SEMAPHORE;
        }
    }

    String toLine() {
        return String.join(
                "\t",
                Long.toString(time),
                jvm,
                Long.toString(op),
                Long.toString(parent),
                type.name(),
                phase.name(),
                kind.name(),
                String.join(",", locks),
                owner,
                Long.toString(waitMillis),
                Long.toString(leaseMillis),
                Long.toString(token),
                detail.replaceAll("[\\t\\r\\n]+", " "));
    }

    static Event parse(String line) {
        String[] f = line.split("\t", -1);
        if (f.length != 13) {
            throw new IllegalArgumentException("not a history line: " + line);
        }
        return new Event(
                Long.parseLong(f[0]),
                f[1],
                Long.parseLong(f[2]),
                Long.parseLong(f[3]),
                Type.valueOf(f[4]),
                Phase.valueOf(f[5]),
                Kind.valueOf(f[6]),
                Arrays.asList(f[7].split(",")),
                f[8],
                Long.parseLong(f[9]),
                Long.parseLong(f[10]),
                Long.parseLong(f[11]),
                f[12]);
    }
}
