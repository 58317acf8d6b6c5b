package dev.distlock.spring.autoconfigure;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code distlock.events.*}: the in-memory log of recent lock events that the {@code distlock}
 * endpoint reports for timelines ({@code GET /actuator/distlock?eventsAfter=0}).
 */
@ConfigurationProperties("distlock.events")
public class DistlockEventsProperties {

    /**
     * Whether to keep recent lock events in memory for the distlock endpoint.
     */
    private boolean enabled;

    /**
     * Most lock events kept, 1 to 100,000; the newest overwrites the oldest.
     */
    private int capacity = 2000;

    /**
     * How long a lock event is reported.
     */
    private Duration retention = Duration.ofSeconds(60);

    /**
     * Returns whether events are kept.
     * @return whether enabled
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Sets whether events are kept.
     * @param enabled whether enabled
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * Returns the most events kept.
     * @return the capacity
     */
    public int getCapacity() {
        return capacity;
    }

    /**
     * Sets the most events kept.
     * @param capacity the capacity, between 1 and 100,000
     */
    public void setCapacity(int capacity) {
        if (capacity < 1 || capacity > 100_000) {
            throw new IllegalArgumentException(
                    "'distlock.events.capacity' must be between 1 and 100000, was " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * Returns how long an event is reported.
     * @return the retention
     */
    public Duration getRetention() {
        return retention;
    }

    /**
     * Sets how long an event is reported.
     * @param retention a positive duration
     */
    public void setRetention(Duration retention) {
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("'distlock.events.retention' must be positive, was " + retention);
        }
        this.retention = retention;
    }
}
