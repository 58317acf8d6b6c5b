package dev.distlock.spring.internal.actuator;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the red-lock nodes: one contributor per node, and a {@code quorum} contributor that is
 * DOWN only when fewer than a majority of nodes answer {@code PING} (red locks still work while a
 * majority does). A node that does not answer reports {@link #UNREACHABLE}, a status the default
 * status order does not rank, so a minority of unreachable nodes leaves the aggregate UP. Each
 * node's details list its {@code maxmemory-policy}, as the main indicator's do.
 */
public final class RedLockHealthIndicators {

    /** Status of a red-lock node that does not answer, while the quorum decides the aggregate. */
    public static final Status UNREACHABLE = new Status("UNREACHABLE", "The red-lock node does not answer PING");

    private RedLockHealthIndicators() {}

    /**
     * Builds the contributor of the red-lock nodes.
     * @param clients one client per node
     * @return {@code quorum} plus {@code node-<i>} per node
     */
    public static CompositeHealthContributor of(List<LockClient> clients) {
        Map<String, HealthContributor> contributors = new LinkedHashMap<>();
        contributors.put("quorum", quorum(clients));
        for (int i = 0; i < clients.size(); i++) {
            LockClient client = clients.get(i);
            contributors.put("node-" + i, (HealthIndicator) () -> {
                try {
                    Health.Builder up = Health.up().withDetail("latencyMillis", millis(client.ping()));
                    EvictionPolicyDetails.addTo(up, client);
                    return up.build();
                } catch (LockException ex) {
                    return Health.status(UNREACHABLE)
                            .withDetail("error", ex.getMessage())
                            .build();
                }
            });
        }
        return CompositeHealthContributor.fromMap(contributors);
    }

    private static HealthIndicator quorum(List<LockClient> clients) {
        int quorum = clients.size() / 2 + 1;
        return () -> {
            List<CompletableFuture<Boolean>> pings = clients.stream()
                    .map(client -> CompletableFuture.supplyAsync(() -> {
                        try {
                            client.ping();
                            return true;
                        } catch (LockException ex) {
                            return false;
                        }
                    }))
                    .toList();
            long reachable = pings.stream().filter(CompletableFuture::join).count();
            Health.Builder builder = reachable >= quorum ? Health.up() : Health.down();
            return builder.withDetail("reachable", reachable)
                    .withDetail("nodes", clients.size())
                    .withDetail("quorum", quorum)
                    .build();
        };
    }

    private static double millis(Duration duration) {
        return duration.toNanos() / 1_000_000.0;
    }
}
