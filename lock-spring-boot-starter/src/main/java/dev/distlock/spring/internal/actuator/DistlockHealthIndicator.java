package dev.distlock.spring.internal.actuator;

import dev.distlock.core.LockClient;
import java.time.Duration;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Reports UP when the lock client's Redis answers {@code PING} on both its command connection and
 * the pub/sub connection that wakes waiters, with both latencies in the details, else DOWN. The
 * details also list each server's {@code maxmemory-policy} and, when one may evict lock keys, a
 * warning, without changing the status. Never shows credentials.
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
        builder.withDetail("latencyMillis", millis(latency))
                .withDetail("heldLocks", client.heldLocks().size());
        EvictionPolicyDetails.addTo(builder, client);
        // Waiters are woken through the pub/sub connection: without it every hand-off waits out a lease.
        try {
            builder.withDetail("pubSubLatencyMillis", millis(client.pingSubscriptions()))
                    .up();
        } catch (RuntimeException ex) {
            builder.withDetail("pubSub", "unavailable: " + ex.getMessage()).down();
        }
    }

    private static double millis(Duration duration) {
        return duration.toNanos() / 1_000_000.0;
    }
}
