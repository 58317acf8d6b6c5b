package dev.distlock.core.internal.connection;

import dev.distlock.core.EvictionPolicy;
import io.lettuce.core.RedisCommandExecutionException;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code maxmemory-policy} of each server a client writes locks to, read from {@code INFO}
 * when a connection to it opens (never per lock call), with a warning when the policy lets Redis
 * evict lock keys. Every policy but {@code noeviction} may: the {@code allkeys-*} ones evict any key,
 * and the {@code volatile-*} ones evict keys with a TTL, which every lock key has. {@code INFO}
 * rather than {@code CONFIG GET}, which managed servers often refuse; a server that refuses
 * {@code INFO} too has the policy {@code unknown}.
 */
public final class EvictionPolicies {

    private static final String UNKNOWN = EvictionPolicy.UNKNOWN;
    private static final String NOEVICTION = EvictionPolicy.NOEVICTION;

    private static final Logger log = LoggerFactory.getLogger(EvictionPolicies.class);

    private final Map<String, String> policies = new ConcurrentHashMap<>();

    /** The same reply names the server's product and version, logged once per server. */
    private final ServerIdentities identities = new ServerIdentities();

    /** The policy last logged per server, so that a reconnect to an unchanged server logs nothing. */
    private final Map<String, String> logged = new ConcurrentHashMap<>();

    /**
     * Records a server's policy from its {@code INFO} reply once the reply arrives; an error
     * reply (the command refused) records {@code unknown}, a connection failure records nothing
     * (the next connect asks again).
     * @param server {@code host:port}
     * @param info the pending reply
     */
    void read(String server, CompletionStage<String> info) {
        info.whenComplete((reply, failure) -> {
            if (failure == null) {
                identities.record(server, reply);
                record(server, policyIn(reply), maxmemoryIn(reply));
            } else if (unwrap(failure) instanceof RedisCommandExecutionException refused) {
                log.debug("Redis at {} refused INFO: {}", server, refused.getMessage());
                record(server, UNKNOWN, null);
            } else {
                log.debug("Cannot read the maxmemory-policy of Redis at {}: {}", server, failure.toString());
            }
        });
    }

    /**
     * Forgets the servers that are no longer written to (a Cluster master demoted or removed).
     * @param servers the servers still written to
     */
    void retain(Collection<String> servers) {
        policies.keySet().retainAll(servers);
    }

    /**
     * Returns the policies known now.
     * @return server ({@code host:port}) to policy, sorted by server; empty before the first connect
     */
    public Map<String, String> snapshot() {
        return new TreeMap<>(policies);
    }

    private void record(String server, String policy, @Nullable String maxmemory) {
        policies.put(server, policy);
        if (policy.equals(logged.put(server, policy))) {
            return;
        }
        if (policy.equals(NOEVICTION)) {
            log.debug("Redis at {} has maxmemory-policy noeviction: lock keys are never evicted", server);
        } else if (policy.equals(UNKNOWN)) {
            log.info(
                    "Cannot read the maxmemory-policy of Redis at {} (INFO refused or incomplete): unless it"
                            + " is noeviction, Redis may evict lock keys under memory pressure, and another client"
                            + " then takes a lock that is still held. See docs/failure-modes.md#eviction",
                    server);
        } else {
            log.warn(
                    "Redis at {} has maxmemory-policy {} (maxmemory {}): it may evict lock keys when memory runs"
                            + " out ({}), and another client then takes a lock its holder still believes it holds."
                            + " Set maxmemory-policy noeviction, or keep locks in a Redis of their own."
                            + " See docs/failure-modes.md#eviction",
                    server,
                    policy,
                    maxmemory,
                    reason(policy));
        }
    }

    private static String reason(String policy) {
        if (policy.startsWith("volatile-")) {
            return "volatile-* policies evict keys that have a TTL, and every lock key has one";
        }
        return policy.startsWith("allkeys-") ? "allkeys-* policies evict any key" : "any policy but noeviction may";
    }

    private static String policyIn(String info) {
        String policy = field(info, "maxmemory_policy");
        return policy == null || policy.isEmpty() ? UNKNOWN : policy;
    }

    private static String maxmemoryIn(String info) {
        String human = field(info, "maxmemory_human");
        String bytes = field(info, "maxmemory");
        if ("0".equals(bytes)) {
            return "0, no limit yet";
        }
        return human != null ? human : bytes != null ? bytes : UNKNOWN;
    }

    private static @Nullable String field(String info, String name) {
        return InfoReply.field(info, name);
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
