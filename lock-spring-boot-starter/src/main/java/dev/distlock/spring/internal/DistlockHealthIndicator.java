package dev.distlock.spring.internal;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import dev.distlock.core.LockClient;

/**
 * Reports UP when every configured Redis answers {@code PING}, with the latencies in the details.
 * Never shows credentials.
 */
public final class DistlockHealthIndicator extends AbstractHealthIndicator {

    private final LockClient client;
    private final List<LockClient> redLockClients;

    /**
     * Creates the indicator.
     * @param client main client
     * @param redLockClients red-lock clients
     */
    public DistlockHealthIndicator(LockClient client, List<LockClient> redLockClients) {
        super("Distlock health check failed");
        this.client = client;
        this.redLockClients = List.copyOf(redLockClients);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Duration latency = client.ping();
        builder.withDetail("latencyMillis", latency.toNanos() / 1_000_000.0);
        for (int i = 0; i < redLockClients.size(); i++) {
            builder.withDetail("redlock[" + i + "].latencyMillis", redLockClients.get(i).ping().toNanos() / 1_000_000.0);
        }
        builder.withDetail("heldLocks", client.heldLocks().size()).up();
    }
}
