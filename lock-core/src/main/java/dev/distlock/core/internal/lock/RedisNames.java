package dev.distlock.core.internal.lock;

import org.jspecify.annotations.Nullable;

/**
 * Redisson's naming of a lock's companion keys and channels ({@code prefix:{key}} and
 * {@code {key}:suffix}), made safe for Redis Cluster, where every key a script touches must hash to
 * the lock key's slot.
 *
 * <p>Redis Cluster hashes only a key's hash tag when it has one: the text between its first
 * <code>&#123;</code> and the first <code>&#125;</code> after that, if not empty; otherwise the whole
 * key. Redisson wraps a key in braces unless it contains a <code>&#123;</code> at all, so a key such
 * as <code>x&#123;</code> or <code>a&#123;&#125;</code>, whose braces form no tag, gets companions in other slots: CROSSSLOT in a cluster,
 * for Redisson too. Outside a cluster slots do not matter, and the names stay exactly Redisson's so
 * that both libraries meet on the same keys. In a cluster such a key is wrapped, which makes the
 * whole key the companions' tag; a key that also contains a <code>&#125;</code> cannot be a tag at all, so no
 * companion can share its slot, and it is refused up front rather than failing (possibly after the
 * lock was taken) with CROSSSLOT. The Lua fragment {@code rw-holds.lua} applies the same rule.
 */
public final class RedisNames {

    private final boolean cluster;

    /**
     * Creates the naming of one client.
     * @param cluster whether the client talks to a Redis Cluster
     */
    public RedisNames(boolean cluster) {
        this.cluster = cluster;
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

    /**
     * Returns the part of every companion name that carries the lock key: {@code {key}}, or the key
     * itself when it has a hash tag (or, outside a cluster, any brace, as Redisson does).
     * @param key the lock key
     * @return the base
     * @throws IllegalArgumentException in a cluster, for a key whose braces form no hash tag and
     *     that contains a <code>&#125;</code>
     */
    public String base(String key) {
        if (key.indexOf('{') < 0) {
            return "{" + key + "}";
        }
        if (!cluster || hashTag(key) != null) {
            return key;
        }
        if (key.indexOf('}') >= 0) {
            throw new IllegalArgumentException("Lock key '" + key + "' cannot be used with Redis Cluster: its braces form"
                    + " no hash tag (text between the first '{' and the next '}'), so Redis Cluster hashes the whole key,"
                    + " and since it contains '}' no companion key (unlock channel, queue, hold timeouts) can share its"
                    + " slot. Use a name without braces, or one with a non-empty hash tag such as '{order}:42'");
        }
        return "{" + key + "}";
    }

    /**
     * Returns {@code prefix:{key}} (Redisson's {@code prefixName}), cluster-safe as described above.
     * @param prefix e.g. {@code redisson_lock__channel}
     * @param key the lock key
     * @return the companion name
     */
    public String suffixed(String prefix, String key) {
        return prefix + ":" + base(key);
    }

    /**
     * Returns {@code {key}:suffix} (Redisson's {@code suffixName}), cluster-safe as described above.
     * @param key the lock key
     * @param suffix e.g. {@code owner:rwlock_timeout}
     * @return the companion name
     */
    public String prefixed(String key, String suffix) {
        return base(key) + ":" + suffix;
    }
}
