package dev.distlock.spring.internal;

import java.time.Duration;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import dev.distlock.core.LockClient;

/**
 * Reports UP when the lock client's Redis answers {@code PING}, with the latency in the details,
 * else DOWN. Never shows credentials.
 */
public final class DistlockHealthIndicator extends AbstractHealthIndicator {

    private final LockClient client;

    /**
     * Creates the indicator.
     * @param client main client
     */
    public DistlockHealthIndicator(LockClient client) {
        super("Distlock health check failed");
        this.client = client;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Duration latency = client.ping();
        builder.withDetail("latencyMillis", latency.toNanos() / 1_000_000.0)
                .withDetail("heldLocks", client.heldLocks().size()).up();
    }
}
