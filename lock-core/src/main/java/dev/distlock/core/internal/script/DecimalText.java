package dev.distlock.core.internal.script;

/**
 * Numbers as the decimal text scripts receive, kept for the few values a client sends over and
 * over (its leases, latch lifetime, timeouts) so that a call does not build the same string again.
 */
final class DecimalText {

    private record Entry(long value, String text) {}

    /** Direct-mapped; entries are immutable, so a racy read sees a whole entry or none. */
    private static final Entry[] CACHE = new Entry[64];

    private DecimalText() {}

    /**
     * Returns a number's decimal text.
     * @param value the number
     * @return {@code Long.toString(value)}
     */
    static String of(long value) {
        int slot = (int) ((value * 0x9E3779B97F4A7C15L) >>> 58);
        Entry entry = CACHE[slot];
        if (entry != null && entry.value() == value) {
            return entry.text();
        }
        String text = Long.toString(value);
        CACHE[slot] = new Entry(value, text);
        return text;
    }
}
