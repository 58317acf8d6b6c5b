package dev.distlock.core.chaos;

/**
 * One write to the {@link FencedLedger}.
 *
 * @param lock lock name
 * @param time wall-clock millis
 * @param owner {@code jvm:ownerId}
 * @param token the writer's token
 * @param phase {@code E} or {@code X}
 * @param verdict {@code ACCEPT}, {@code REJECT} or {@code DUP}
 */
record LedgerEntry(String lock, long time, String owner, long token, String phase, String verdict) {

    static LedgerEntry parse(String lock, String line) {
        String[] f = line.split("\t");
        return new LedgerEntry(lock, Long.parseLong(f[0]), f[1], Long.parseLong(f[2]), f[3], f[4]);
    }
}
