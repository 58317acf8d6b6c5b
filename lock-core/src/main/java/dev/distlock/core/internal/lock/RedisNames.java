package dev.distlock.core.internal.lock;

/**
 * Redisson's naming of auxiliary keys and channels. Each embeds the lock key in braces, so in a
 * cluster it hashes to the lock's slot; a key that already contains a brace is not wrapped again.
 */
public final class RedisNames {

    private RedisNames() {
    }

    /**
     * Returns {@code prefix:{key}} (or {@code prefix:key} when the key has a brace).
     * @param prefix e.g. {@code redisson_lock__channel}
     * @param key the lock key
     * @return the auxiliary name
     */
    public static String suffixed(String prefix, String key) {
        return key.contains("{") ? prefix + ":" + key : prefix + ":{" + key + "}";
    }

    /**
     * Returns {@code {key}:suffix} (or {@code key:suffix} when the key has a brace).
     * @param key the lock key
     * @param suffix e.g. {@code owner:rwlock_timeout}
     * @return the auxiliary name
     */
    public static String prefixed(String key, String suffix) {
        return key.contains("{") ? key + ":" + suffix : "{" + key + "}:" + suffix;
    }
}
