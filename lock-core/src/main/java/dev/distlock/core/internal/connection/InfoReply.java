package dev.distlock.core.internal.connection;

import org.jspecify.annotations.Nullable;

/** Reads one field of a Redis {@code INFO} reply ({@code name:value} lines). */
final class InfoReply {

    private InfoReply() {}

    /**
     * Returns a field's value.
     * @param info the reply
     * @param name the field
     * @return its value, trimmed, or {@code null} when the reply has no such field
     */
    static @Nullable String field(String info, String name) {
        String prefix = name + ":";
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
        }
        return null;
    }
}
