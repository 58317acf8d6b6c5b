package dev.distlock.core.internal.connection;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A connection lent to one replica-synced acquisition: its acquire script and the {@code WAIT}
 * that confirms it run here, on the master that owns the key, and nowhere else. {@code WAIT}
 * counts the acknowledgement of its own connection's writes and blocks the connection while it
 * waits, so it can neither share the connection every other lock uses nor run on another one.
 * Hand it back once, with {@link #giveBack()} when no reply is outstanding, else {@link #discard()}.
 */
public final class SyncedConnection {

    private static final ThreadLocal<SyncedConnection> ROUTED = new ThreadLocal<>();

    private final StatefulRedisConnection<String, String> connection;
    private final DedicatedConnections pool;
    private final String target;
    private final AtomicBoolean returned = new AtomicBoolean();

    SyncedConnection(StatefulRedisConnection<String, String> connection, DedicatedConnections pool, String target) {
        this.connection = connection;
        this.pool = pool;
        this.target = target;
    }

    /**
     * Starts Redis calls with the connector's command API pointing at this connection: the calls
     * that {@code call} makes on this thread, before it returns, run here.
     * @param call starts the calls
     * @param <T> result type
     * @return what {@code call} returned
     */
    public <T> T route(Supplier<T> call) {
        SyncedConnection previous = ROUTED.get();
        ROUTED.set(this);
        try {
            return call.get();
        } finally {
            if (previous == null) {
                ROUTED.remove();
            } else {
                ROUTED.set(previous);
            }
        }
    }

    /** @return the connection the calls of this thread are routed to, if any */
    static @Nullable SyncedConnection routed() {
        return ROUTED.get();
    }

    RedisClusterAsyncCommands<String, String> commands() {
        return connection.async();
    }

    /**
     * Runs {@code WAIT} here, counting the replicas that acknowledged this connection's writes.
     * @param replicas replicas to wait for
     * @param timeoutMillis how long the server waits
     * @return how many replicas acknowledged
     */
    public CompletableFuture<Long> waitForReplicas(int replicas, long timeoutMillis) {
        return connection.async().waitForReplication(replicas, timeoutMillis).toCompletableFuture();
    }

    /** Returns the connection for the next acquisition; only when no reply is outstanding. */
    public void giveBack() {
        if (returned.compareAndSet(false, true)) {
            pool.giveBack(target, connection);
        }
    }

    /** Closes the connection: a reply may still be outstanding (a timed-out script or {@code WAIT}). */
    public void discard() {
        if (returned.compareAndSet(false, true)) {
            connection.closeAsync();
        }
    }
}
