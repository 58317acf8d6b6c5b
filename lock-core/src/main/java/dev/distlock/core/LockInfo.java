package dev.distlock.core;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A lock's state as Redis holds it now, whoever holds it.
 *
 * @param name lock name (without key prefix)
 * @param locked whether anyone holds it
 * @param mode {@code read} or {@code write} for a read-write lock, else {@code null}
 * @param holders owner field ({@code <clientId>:<ownerId>[:write]}) to hold count
 * @param remainingTtlMillis lease left in ms, {@code -2} when not locked, {@code -1} when it has no expiry
 * @param queueLength fair-lock waiters queued, {@code 0} for other kinds
 */
public record LockInfo(
        String name,
        boolean locked,
        @Nullable String mode,
        Map<String, Long> holders,
        long remainingTtlMillis,
        long queueLength) {

    /**
     * Returns the mode of a read-write lock as a kind.
     * @return {@link LockKind#READ} or {@link LockKind#WRITE} for a read-write lock, else {@code null}
     */
    public @Nullable LockKind modeKind() {
        if (mode == null) {
            return null;
        }
        return switch (mode) {
            case "read" -> LockKind.READ;
            case "write" -> LockKind.WRITE;
            default -> null;
        };
    }
}
