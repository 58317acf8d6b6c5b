package dev.distlock.core.internal.connection;

import dev.distlock.core.LockException;
import io.lettuce.core.api.StatefulConnection;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A connection opened on first use; a failed attempt is retried by the next call instead of
 * failing the client for good.
 *
 * @param <C> connection type
 */
final class LazyConnection<C extends StatefulConnection<?, ?>> {

    private final Supplier<C> opener;
    private final String description;
    private volatile @Nullable C connection;
    private volatile boolean closed;

    LazyConnection(Supplier<C> opener, String description) {
        this.opener = opener;
        this.description = description;
    }

    C get() {
        C current = connection;
        if (current != null) {
            return current;
        }
        if (Thread.currentThread() instanceof FastThreadLocalThread) {
            // A Redis I/O thread (a reply's continuation) must never open a connection: the
            // connection it waits for is served by the same few threads, so it would wait for
            // itself. This only happens when the connection was just dropped for reopening (a
            // demoted Sentinel master); fail this call, and the next one from elsewhere reopens it.
            throw new NotConnectedException("Not connected to Redis at " + description + " (reconnecting)", null);
        }
        synchronized (this) {
            if (closed) {
                throw new LockException("Lock client is closed; cannot connect to " + description);
            }
            if (connection == null) {
                // Connecting is shared by every later caller: an interrupt aimed at this caller
                // must not abort it. The flag is restored afterwards.
                boolean interrupted = Thread.interrupted();
                try {
                    connection = opener.get();
                } catch (RuntimeException ex) {
                    throw new NotConnectedException(
                            "Cannot connect to Redis at " + description + ": " + ex.getMessage(), ex);
                } finally {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
            return connection;
        }
    }

    /**
     * Closes the open connection, if it is still the given one, so that the next call opens a new one.
     * @param stale the connection found to be unusable
     */
    synchronized void reopen(C stale) {
        if (connection == stale) {
            connection = null;
            stale.closeAsync();
        }
    }

    /** @return the open connection, or {@code null} when none is open */
    @Nullable
    C current() {
        return connection;
    }

    synchronized void close() {
        closed = true;
        C current = connection;
        connection = null;
        if (current != null) {
            BoundedClose.await("connection", current.closeAsync());
        }
    }
}
