package dev.distlock.core;

/**
 * The {@code maxmemory-policy} of a Redis server that holds a client's locks, as the client read it
 * from {@code INFO memory} when its connection to that server opened. Every policy but
 * {@code noeviction} lets Redis delete lock keys when memory runs out ({@code volatile-*} too: every
 * lock key has a TTL); another client then takes a lock whose holder still believes it holds it.
 * See {@link LockClient#evictionPolicies()}.
 *
 * @param server the server, {@code host:port}
 * @param policy the policy as Redis names it ({@code noeviction}, {@code allkeys-lru}, ...), or
 *     {@value #UNKNOWN} when the server refused {@code INFO memory} or did not name its policy
 */
public record EvictionPolicy(String server, String policy) {

    /** The policy of a server that did not tell it. */
    public static final String UNKNOWN = "unknown";

    /** The one policy under which Redis never evicts a key (writes fail instead when memory is full). */
    public static final String NOEVICTION = "noeviction";

    /**
     * Returns whether Redis may evict lock keys on this server: true for every policy but
     * {@code noeviction}, and for {@value #UNKNOWN}, which may be any.
     * @return whether lock keys may be evicted
     */
    public boolean mayEvictLocks() {
        return !NOEVICTION.equals(policy);
    }

    /**
     * Returns whether the server told its policy.
     * @return false for {@value #UNKNOWN}
     */
    public boolean known() {
        return !UNKNOWN.equals(policy);
    }
}
