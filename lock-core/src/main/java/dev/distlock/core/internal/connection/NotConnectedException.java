package dev.distlock.core.internal.connection;

import dev.distlock.core.LockException;
import org.jspecify.annotations.Nullable;

/**
 * No connection to write on: none could be opened, or it is being reopened. Nothing was sent, so
 * a caller whose deadline has not passed may wait for the connection and try again.
 */
public final class NotConnectedException extends LockException {

    private static final long serialVersionUID = 1L;

    NotConnectedException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
