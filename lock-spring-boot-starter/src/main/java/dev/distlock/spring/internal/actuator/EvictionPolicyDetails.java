package dev.distlock.spring.internal.actuator;

import dev.distlock.core.EvictionPolicy;
import dev.distlock.core.LockClient;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.EvictionPolicyReport;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;

/**
 * The eviction policies of a client's servers in the endpoint's reply and as health details: each
 * server's policy, and a warning when one may evict lock keys. The status stays as it is: eviction
 * is a risk of the configuration, not an outage, and an instance taken out of service for it would
 * not fix Redis.
 */
final class EvictionPolicyDetails {

    static final String POLICIES = "evictionPolicies";
    static final String WARNING = "evictionWarning";

    private EvictionPolicyDetails() {}

    /**
     * Adds the details, once the client has read any policy (it reads them as it connects).
     * @param builder the health being built
     * @param client the client
     */
    static void addTo(Health.Builder builder, LockClient client) {
        List<EvictionPolicy> policies = client.evictionPolicies();
        if (policies.isEmpty()) {
            return;
        }
        Map<String, String> byServer = new LinkedHashMap<>();
        policies.forEach(policy -> byServer.put(policy.server(), policy.policy()));
        builder.withDetail(POLICIES, byServer);
        String warning = warning(policies);
        if (warning != null) {
            builder.withDetail(WARNING, warning);
        }
    }

    /**
     * Reports one server's policy in the endpoint's reply.
     * @param policy the policy
     * @param redLockNode index of the red-lock node, {@code null} for the main Redis
     * @return the report
     */
    static EvictionPolicyReport report(EvictionPolicy policy, @Nullable Integer redLockNode) {
        return new EvictionPolicyReport(policy.server(), policy.policy(), policy.mayEvictLocks(), redLockNode);
    }

    /**
     * Says what is wrong when a server's policy may evict lock keys.
     * @param policies the policies
     * @return the warning, or {@code null} when every server has {@code noeviction}
     */
    static @Nullable String warning(List<EvictionPolicy> policies) {
        List<EvictionPolicy> risky =
                policies.stream().filter(EvictionPolicy::mayEvictLocks).toList();
        if (risky.isEmpty()) {
            return null;
        }
        String servers = risky.stream()
                .map(policy -> policy.server() + " (" + policy.policy() + ")")
                .collect(Collectors.joining(", "));
        return "Redis may evict lock keys, and another instance then takes a lock that is still held: " + servers
                + ". Set maxmemory-policy noeviction, or keep locks in a Redis of their own";
    }
}
