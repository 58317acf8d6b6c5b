package dev.distlock.core.test;

/** Reads one field of an {@code INFO} reply ({@code name:value} lines). */
final class InfoFields {

    private InfoFields() {}

    /**
     * Returns a field's value.
     * @param info the reply
     * @param name the field, e.g. {@code redis_version}
     * @return its value, or {@code null} when the reply has no such field
     */
    static String field(String info, String name) {
        String prefix = name + ":";
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
        }
        return null;
    }
}
