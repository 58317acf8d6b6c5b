package dev.distlock.core.chaos;

/**
 * One injected fault, from the moment the nemesis started it to the moment it was healed.
 *
 * @param type fault type, e.g. {@code REDIS_PAUSE}
 * @param target what it hit, e.g. a port or a client JVM
 * @param start wall-clock millis when it began
 * @param end wall-clock millis when it was healed
 * @param dataLoss whether it may have lost Redis data (restart, failover, a pause that may have
 *     triggered a failover): lock keys and fencing counters may vanish without anyone being told
 * @param graceMillis how long after {@code end} clients may still be recovering (reconnects,
 *     topology refreshes); no liveness is demanded before {@code end + graceMillis}
 */
record Fault(String type, String target, long start, long end, boolean dataLoss, long graceMillis) {

    String toLine() {
        return String.join(
                "\t",
                type,
                target.replace('\t', ' '),
                Long.toString(start),
                Long.toString(end),
                Boolean.toString(dataLoss),
                Long.toString(graceMillis));
    }

    static Fault parse(String line) {
        String[] f = line.split("\t");
        return new Fault(
                f[0],
                f[1],
                Long.parseLong(f[2]),
                Long.parseLong(f[3]),
                Boolean.parseBoolean(f[4]),
                Long.parseLong(f[5]));
    }

    /** @return the end of the window in which clients may still be recovering */
    long settled() {
        return end + graceMillis;
    }
}
