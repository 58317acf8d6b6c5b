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
     * Returns whether a Redis call failed before anything was written or run: refused while the
     * client is disconnected (it reconnects by itself), no connection could be opened, or a Redis
     * Cluster node refused to run it while a live slot migration has its keys on two nodes
     * ({@link #slotMigrating(Throwable)}). Such a call may be sent again; a call that failed any
     * other way may have run.
     * @param failure what the call failed with
     * @return whether nothing was written
     */
    public static boolean unwritten(Throwable failure) {
        Throwable cause = cause(failure);
        if (cause instanceof NotConnectedException
                || cause instanceof RedisConnectionException
                || slotMigrating(cause)) {
            return true;
        }
        // Lettuce's refusal of a write while disconnected (REJECT_COMMANDS) has no type of its own.
        return cause instanceof RedisException
                && String.valueOf(cause.getMessage()).startsWith("Currently not connected");
    }

    /**
     * Returns whether Redis refused to run a call because a live slot migration has some of the
     * keys it declares on the importing node and some on the migrating one ({@code TRYAGAIN}): the
     * call did not run, and runs once the keys are together, at the latest when the move completes.
     * @param failure what the call failed with
     * @return whether it was refused for a slot migration
     */
    public static boolean slotMigrating(Throwable failure) {
        Throwable cause = cause(failure);
        return cause instanceof RedisException
                && String.valueOf(cause.getMessage()).startsWith("TRYAGAIN");
    }
}
