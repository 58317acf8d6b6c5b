package dev.distlock.spring.autoconfigure;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code distlock.integration.*}: the {@code DistlockLockRegistry} auto-configured as Spring
 * Integration's lock registry.
 */
@ConfigurationProperties("distlock.integration")
public class DistlockIntegrationProperties {

    /**
     * Whether to auto-configure a DistlockLockRegistry when Spring Integration is on the class path
     * and no LockRegistry bean is defined.
     */
    private boolean enabled = true;

    /**
     * Lease of the registry's locks; when not set, the client's watchdog renews them while held.
     */
    private @Nullable Duration leaseTime;

    /**
     * Whether the registry's locks are fenced locks, whose holders can read a fencing token (each
     * fenced name keeps a counter key in Redis).
     */
    private boolean fenced;

    /**
     * Returns whether the registry is auto-configured.
     * @return whether enabled
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Sets whether the registry is auto-configured.
     * @param enabled whether enabled
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * Returns the lease of the registry's locks.
     * @return the lease, or {@code null} for the watchdog
     */
    public @Nullable Duration getLeaseTime() {
        return leaseTime;
    }

    /**
     * Sets the lease of the registry's locks.
     * @param leaseTime a positive lease, or {@code null} for the watchdog
     */
    public void setLeaseTime(@Nullable Duration leaseTime) {
        if (leaseTime != null && (leaseTime.isNegative() || leaseTime.isZero())) {
            throw new IllegalArgumentException(
                    "'distlock.integration.lease-time' must be positive, or unset for the watchdog; was " + leaseTime);
        }
        this.leaseTime = leaseTime;
    }

    /**
     * Returns whether the registry's locks are fenced.
     * @return whether fenced
     */
    public boolean isFenced() {
        return fenced;
    }

    /**
     * Sets whether the registry's locks are fenced.
     * @param fenced whether fenced
     */
    public void setFenced(boolean fenced) {
        this.fenced = fenced;
    }
}
