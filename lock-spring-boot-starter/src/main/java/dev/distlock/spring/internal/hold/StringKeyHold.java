package dev.distlock.spring.internal.hold;

import dev.distlock.core.StringLockKeys;
import java.time.Instant;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A hold of this instance on a plain string lock key, in a layout core does not keep holds of
 * (Spring Integration's {@code RedisLockRegistry} layout): core's {@code heldLocks()} cannot list it,
 * so {@link HoldIndex} keeps it for the {@code distlock} endpoint.
 */
public final class StringKeyHold {

    private final String name;
    private final String key;
    private final String description;
    private final long ownerId;
    private final @Nullable String threadName;
    private final Instant since = Instant.now();
    private final boolean watchdog;
    private final IntSupplier holdCount;
    private final StringLockKeys keys;

    StringKeyHold(
            String name,
            String key,
            String description,
            Thread thread,
            boolean watchdog,
            IntSupplier holdCount,
            StringLockKeys keys) {
        this.name = name;
        this.key = key;
        this.description = description;
        this.ownerId = thread.getId();
        this.threadName = thread.getName();
        this.watchdog = watchdog;
        this.holdCount = holdCount;
        this.keys = keys;
    }

    /** @return the lock name events and metrics report it under */
    public String name() {
        return name;
    }

    /** @return the Redis key, used as is (no key prefix) */
    public String key() {
        return key;
    }

    /** @return what holds it, for messages: the registry and its layout */
    public String description() {
        return description;
    }

    /** @return the holding thread's id, the owner id its events carry */
    public long ownerId() {
        return ownerId;
    }

    /** @return the holding thread's name */
    public @Nullable String threadName() {
        return threadName;
    }

    /** @return when it was taken */
    public Instant since() {
        return since;
    }

    /** @return whether a watchdog renews it */
    public boolean watchdog() {
        return watchdog;
    }

    /** @return how many times the holding thread took it */
    public int holdCount() {
        return holdCount.getAsInt();
    }

    /**
     * Reads the key's time to live from Redis.
     * @return milliseconds, or a negative value when the key is gone or never expires
     * @throws dev.distlock.core.LockException if Redis does not answer in time
     */
    public long remainingTtlMillis() {
        return keys.remainingTimeToLive(key);
    }
}
