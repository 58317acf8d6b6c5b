package dev.distlock.core.internal;

import dev.distlock.core.internal.connection.NotConnectedException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.util.concurrent.CompletionException;

/** What a failed future failed with, whichever stage reported it. */
public final class Failures {

    private Failures() {}

    /**
     * Returns the failure a dependent stage wrapped in a {@link CompletionException}, or the failure
     * itself when it is not wrapped.
     * @param failure what a {@code whenComplete}/{@code handle} callback received
     * @return the underlying failure
     */
    public static Throwable cause(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /**
     * Returns whether a Redis call failed before anything was written: refused while the client
     * is disconnected (it reconnects by itself), or no connection could be opened. Such a call
     * may be sent again; a call that failed any other way may have run.
     * @param failure what the call failed with
     * @return whether nothing was written
     */
    public static boolean unwritten(Throwable failure) {
        Throwable cause = cause(failure);
        if (cause instanceof NotConnectedException || cause instanceof RedisConnectionException) {
            return true;
        }
        // Lettuce's refusal of a write while disconnected (REJECT_COMMANDS) has no type of its own.
        return cause instanceof RedisException
                && String.valueOf(cause.getMessage()).startsWith("Currently not connected");
    }
}
