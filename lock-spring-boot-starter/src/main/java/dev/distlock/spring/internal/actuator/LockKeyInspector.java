package dev.distlock.spring.internal.actuator;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockException;
import dev.distlock.core.LockInfo;
import dev.distlock.core.RedisLock;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Tells whether the key of a lock name holds a Distlock/Redisson lock, and of which kind, so that the
 * endpoint shows and force-unlocks locks only. A lock is a hash whose fields are owner fields
 * ({@code <client uuid>:<owner id>}, the id negative for asynchronous owners, {@code :write} for a writer's own field) with positive hold
 * counts, plus {@code mode} ({@code read} or {@code write}) for a read-write lock; a fair lock may
 * also have a waiter queue. Anything else (a string, a list, a hash with other fields) is not a lock.
 */
final class LockKeyInspector {

    private static final Pattern OWNER_FIELD = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}:-?\\d+(:write)?");

    private LockKeyInspector() {}

    /** What a lock name's key holds. */
    enum Kind {
        /** No key and no queue. */
        ABSENT,
        /** A reentrant (or fenced) lock. */
        REENTRANT,
        /** A fair lock: a waiter queue, with or without a holder. */
        FAIR,
        /** A read-write lock, {@code mode} read or write. */
        READ_WRITE,
        /** Something that is not a Distlock/Redisson lock. */
        NOT_A_LOCK
    }

    /**
     * A classified key.
     * @param kind what the key holds
     * @param info its state, {@code null} when it is not a lock
     * @param reason why it is not a lock, else {@code null}
     */
    record Inspection(Kind kind, @Nullable LockInfo info, @Nullable String reason) {}

    /**
     * Reads and classifies a lock name's key.
     * @param client client of the Redis to read
     * @param name lock name
     * @return the classification
     * @throws LockException if Redis cannot be read
     */
    static Inspection inspect(LockClient client, String name) {
        LockInfo info;
        try {
            info = client.inspect(name);
        } catch (LockException ex) {
            if (isWrongType(ex)) {
                return new Inspection(Kind.NOT_A_LOCK, null, "the key (or its fair-lock queue) is not a hash/list");
            }
            throw ex;
        }
        String mode = info.mode();
        if (mode != null && !mode.equals("read") && !mode.equals("write")) {
            return new Inspection(Kind.NOT_A_LOCK, null, "field 'mode' is neither read nor write");
        }
        for (Map.Entry<String, Long> holder : info.holders().entrySet()) {
            if (!OWNER_FIELD.matcher(holder.getKey()).matches() || holder.getValue() <= 0) {
                return new Inspection(Kind.NOT_A_LOCK, null, "the hash has fields that are not lock owners");
            }
        }
        if (info.locked() && info.remainingTtlMillis() == -1) {
            // Every lock script sets a lease on the hash; a hash without expiry was written by something else.
            return new Inspection(Kind.NOT_A_LOCK, null, "the key has no expiry, which a lock always has");
        }
        if (info.locked() && info.holders().isEmpty()) {
            return new Inspection(Kind.NOT_A_LOCK, null, "the key exists but has no lock owner field");
        }
        if (mode != null) {
            return new Inspection(Kind.READ_WRITE, info, null);
        }
        if (info.queueLength() > 0) {
            return new Inspection(Kind.FAIR, info, null);
        }
        return new Inspection(info.locked() ? Kind.REENTRANT : Kind.ABSENT, info, null);
    }

    /**
     * Returns the lock whose own force-release suits the inspected kind, so that its waiters are woken.
     * @param client the client
     * @param name lock name
     * @param inspection what {@link #inspect} found
     * @return the lock, or {@code null} when there is nothing to release
     */
    static @Nullable RedisLock releasable(LockClient client, String name, Inspection inspection) {
        return switch (inspection.kind()) {
            case REENTRANT -> client.getLock(name);
            case FAIR -> client.getFairLock(name);
            case READ_WRITE ->
                "write".equals(inspection.info().mode())
                        ? client.getReadWriteLock(name).writeLock()
                        : client.getReadWriteLock(name).readLock();
            case ABSENT, NOT_A_LOCK -> null;
        };
    }

    private static boolean isWrongType(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("WRONGTYPE")) {
                return true;
            }
        }
        return false;
    }
}
