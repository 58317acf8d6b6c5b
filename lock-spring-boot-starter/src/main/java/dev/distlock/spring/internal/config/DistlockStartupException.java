package dev.distlock.spring.internal.config;

import org.jspecify.annotations.Nullable;

/**
 * A startup failure of Distlock that can say what to set, for
 * {@link dev.distlock.spring.autoconfigure.DistlockFailureAnalyzer}.
 */
public final class DistlockStartupException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String action;

    /**
     * Creates an exception.
     * @param description what failed
     * @param action what to set or change
     * @param cause underlying failure, or {@code null}
     */
    public DistlockStartupException(String description, String action, @Nullable Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    /**
     * Returns what to set or change.
     * @return the action
     */
    public String getAction() {
        return action;
    }
}
