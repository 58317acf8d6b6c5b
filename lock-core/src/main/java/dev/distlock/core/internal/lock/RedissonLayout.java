package dev.distlock.core.internal.lock;

import org.jspecify.annotations.Nullable;

/**
 * Redisson's data layout for one lock key, in one place for every kind: the lock hash and its
 * fields, and each companion key and channel, named exactly as Redisson names them so that both
 * libraries meet on the same keys.
 *
 * <p>Companions are named {@code prefix:{key}} (Redisson's {@code prefixName}) or
 * {@code {key}:suffix} ({@code suffixName}), made safe for Redis Cluster, where every key a script
 * touches must hash to the lock key's slot. Redis Cluster hashes only a key's hash tag when it has
 * one: the text between its first <code>&#123;</code> and the first <code>&#125;</code> after that,
 * if not empty; otherwise the whole key. Redisson wraps a key in braces unless it contains a
 * <code>&#123;</code> at all, so a key such as <code>x&#123;</code> or <code>a&#123;&#125;</code>,
 * whose braces form no tag, gets companions in other slots: CROSSSLOT in a cluster, for Redisson
 * too. Outside a cluster slots do not matter, and the names stay exactly Redisson's. In a cluster
 * such a key is wrapped, which makes the whole key the companions' tag; a key that also contains a
 * <code>&#125;</code> cannot be a tag at all, so no companion can share its slot, and it is refused
 * when the layout is made (when the lock is created) rather than failing, possibly after the lock
 * was taken, with CROSSSLOT. The Lua fragment {@code rw-holds.lua} applies the same rule to the
 * read holds' timeout keys.
 */
public final class RedissonLayout {

    /** Field of a read-write lock's hash that holds its mode, {@code read} or {@code write}. */
    public static final String MODE_FIELD = "mode";

    /** Value of {@link #MODE_FIELD} while readers hold the lock. */
    public static final String READ_MODE = "read";

    /** Value of {@link #MODE_FIELD} while a writer holds the lock. */
    public static final String WRITE_MODE = "write";

    private final String key;
    private final String base;
    private final String clientId;

    private RedissonLayout(String key, String base, String clientId) {
        this.key = key;
        this.base = base;
        this.clientId = clientId;
    }

    /**
     * Describes the layout of one lock key as one client sees it.
     * @param key the lock key (key prefix plus lock name)
     * @param cluster whether the client talks to a Redis Cluster
     * @param clientId the client's id, the first part of its owner fields
     * @return the layout
     * @throws IllegalArgumentException in a cluster, for a key whose braces form no hash tag and
     *     that contains a <code>&#125;</code>
     */
    public static RedissonLayout of(String key, boolean cluster, String clientId) {
        return new RedissonLayout(key, base(key, cluster), clientId);
    }

    /**
     * Returns a key's hash tag as Redis Cluster finds it.
     * @param key a Redis key
     * @return the tag, or {@code null} when the whole key is hashed
     */
    public static @Nullable String hashTag(String key) {
        int open = key.indexOf('{');
        if (open < 0) {
            return null;
        }
        int close = key.indexOf('}', open + 1);
        return close > open + 1 ? key.substring(open + 1, close) : null;
    }

    /** The part of every companion name that carries the lock key: {@code {key}}, or the key itself when it has a tag. */
    private static String base(String key, boolean cluster) {
        if (key.indexOf('{') < 0) {
            return "{" + key + "}";
        }
        if (!cluster || hashTag(key) != null) {
            return key;
        }
        if (key.indexOf('}') >= 0) {
            throw new IllegalArgumentException(
                    "Lock key '" + key + "' cannot be used with Redis Cluster: its braces form"
                            + " no hash tag (text between the first '{' and the next '}'), so Redis Cluster hashes the whole key,"
                            + " and since it contains '}' no companion key (unlock channel, queue, hold timeouts) can share its"
                            + " slot. Use a name without braces, or one with a non-empty hash tag such as '{order}:42'");
        }
        return "{" + key + "}";
    }

    private String prefixed(String prefix) {
        return prefix + ":" + base;
    }

    /** @return the lock key: a hash of owner field to hold count (plus {@link #MODE_FIELD} for read-write locks) */
    public String key() {
        return key;
    }

    /**
     * Returns the unlock channel of a reentrant or fenced lock, on which a release wakes every
     * waiter (Redisson's too). A fair lock's waiters listen on {@link #waiterChannel(String)} instead.
     * @return {@code redisson_lock__channel:{key}}
     */
    public String channel() {
        return prefixed("redisson_lock__channel");
    }

    /**
     * Returns the channel on which a fair lock tells one queued waiter that it is its turn.
     * @param ownerField the waiter's owner field
     * @return {@code redisson_lock__channel:{key}:<owner field>}
     */
    public String waiterChannel(String ownerField) {
        return channel() + ":" + ownerField;
    }

    /** @return the channel of a read-write lock, on which a release wakes every waiter */
    public String readWriteChannel() {
        return prefixed("redisson_rwlock");
    }

    /**
     * Returns the unlock latch of one release request, which remembers its outcome so that a retry
     * of a request whose reply was lost replays it.
     * @param requestId the request id
     * @return {@code redisson_unlock_latch:{key}:<request id>}
     */
    public String unlockLatch(String requestId) {
        return prefixed("redisson_unlock_latch") + ":" + requestId;
    }

    /** @return a fair lock's list of queued owner fields, {@code redisson_lock_queue:{key}} */
    public String queue() {
        return prefixed("redisson_lock_queue");
    }

    /** @return a fair lock's zset of queued owner field to deadline, {@code redisson_lock_timeout:{key}} */
    public String deadlines() {
        return prefixed("redisson_lock_timeout");
    }

    /** @return a fenced lock's token counter, {@code redisson_lock_token:{key}} */
    public String token() {
        return prefixed("redisson_lock_token");
    }

    /** @return a read-write lock's zset of waiting writer field to claim deadline, {@code distlock_rwlock_writers:{key}} */
    public String writers() {
        return prefixed("distlock_rwlock_writers");
    }

    /** @return the set of client ids with a waiter parked on a reentrant lock, {@code distlock_lock_waiters:{key}} */
    public String waitingClients() {
        return prefixed("distlock_lock_waiters");
    }

    /** @return the prefix of the per-client wake-up channels, {@code distlock_lock__wake:{key}:} */
    public String wakePrefix() {
        return prefixed("distlock_lock__wake") + ":";
    }

    /** @return the channel on which this client's waiters are woken one at a time */
    public String clientWakeChannel() {
        return wakePrefix() + clientId;
    }

    /**
     * Returns the key whose TTL is the lease of one read hold. The scripts build it themselves; it
     * is named here so that the whole layout reads in one place.
     * @param readerField the reader's owner field
     * @param hold the hold's number, from 1
     * @return {@code {key}:<reader field>:rwlock_timeout:<n>}
     */
    public String readHoldTimeout(String readerField, int hold) {
        return base + ":" + readerField + ":rwlock_timeout:" + hold;
    }

    /**
     * Returns the owner field of an owner of a reentrant, fenced or fair lock, or of the read side.
     * @param ownerId thread id or explicit owner id
     * @return {@code <client id>:<owner id>}
     */
    public String ownerField(long ownerId) {
        return ownerField(clientId, ownerId);
    }

    /**
     * Returns the owner field of an owner of the write side.
     * @param ownerId thread id or explicit owner id
     * @return {@code <client id>:<owner id>:write}
     */
    public String writerField(long ownerId) {
        return ownerField(ownerId) + ":write";
    }

    /**
     * Returns the owner field of an owner of a client.
     * @param clientId the client's id
     * @param ownerId thread id or explicit owner id
     * @return {@code <client id>:<owner id>}
     */
    public static String ownerField(String clientId, long ownerId) {
        return clientId + ":" + ownerId;
    }
}
