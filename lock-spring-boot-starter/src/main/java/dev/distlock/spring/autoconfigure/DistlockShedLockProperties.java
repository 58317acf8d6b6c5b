package dev.distlock.spring.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code distlock.shedlock.*}: the {@code DistlockLockProvider} auto-configured as ShedLock's lock
 * provider.
 */
@ConfigurationProperties("distlock.shedlock")
public class DistlockShedLockProperties {

    /**
     * Whether to auto-configure a DistlockLockProvider when ShedLock is on the class path and no
     * LockProvider bean is defined.
     */
    private boolean enabled = true;

    /**
     * Layout of the job locks: 'distlock' keeps them as Distlock locks named after the job;
     * 'shedlock-redis' reads and writes the keys of ShedLock's own Redis provider, for a rolling
     * migration from it; 'both' takes both, for the step from 'shedlock-redis' to 'distlock'.
     */
    private Layout layout = Layout.DISTLOCK;

    /**
     * ShedLock environment, part of every key with layout 'shedlock-redis' or 'both'.
     */
    private String environment = "default";

    /**
     * Returns whether the provider is auto-configured.
     * @return whether enabled
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Sets whether the provider is auto-configured.
     * @param enabled whether enabled
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * Returns the layout of the job locks.
     * @return the layout
     */
    public Layout getLayout() {
        return layout;
    }

    /**
     * Sets the layout of the job locks.
     * @param layout the layout
     */
    public void setLayout(Layout layout) {
        this.layout = layout;
    }

    /**
     * Returns ShedLock's environment.
     * @return the environment
     */
    public String getEnvironment() {
        return environment;
    }

    /**
     * Sets ShedLock's environment.
     * @param environment the environment, not blank
     */
    public void setEnvironment(String environment) {
        if (environment == null || environment.isBlank()) {
            throw new IllegalArgumentException("'distlock.shedlock.environment' must not be blank");
        }
        this.environment = environment;
    }

    /** Where job locks live in Redis. */
    public enum Layout {
        /** Distlock locks named after the job: measured, listed, excluding Distlock locks of that name. */
        DISTLOCK,
        /** The keys of ShedLock's own Redis provider, {@code job-lock:<environment>:<job>}. */
        SHEDLOCK_REDIS,
        /**
         * Both at once, for the step from {@link #SHEDLOCK_REDIS} to {@link #DISTLOCK}: a run excludes
         * runs on either.
         */
        BOTH
    }
}
