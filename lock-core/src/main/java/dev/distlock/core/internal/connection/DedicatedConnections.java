package dev.distlock.core.internal.connection;

import dev.distlock.core.LockException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * Connections kept apart from the shared command connection, each lent to one caller at a time:
 * a blocking command ({@code WAIT}) on one of them delays nobody else. A few idle ones are kept
 * per target for reuse; more are opened while all are lent.
 */
final class DedicatedConnections {

    private static final int MAX_IDLE_PER_TARGET = 4;

    private final RedisClient client;
    private final Map<String, Deque<StatefulRedisConnection<String, String>>> idle = new HashMap<>();
    private boolean closed;

    DedicatedConnections(RedisClient client) {
        this.client = client;
    }

    SyncedConnection borrow(RedisURI uri, String description) {
        String target = uri.getHost() + ":" + uri.getPort() + "/" + uri.getSentinelMasterId();
        StatefulRedisConnection<String, String> connection = null;
        synchronized (this) {
            if (closed) {
                throw new LockException("Lock client is closed; cannot connect to " + description);
            }
            Deque<StatefulRedisConnection<String, String>> free = idle.get(target);
            while (connection == null && free != null && !free.isEmpty()) {
                StatefulRedisConnection<String, String> candidate = free.pollFirst();
                if (candidate.isOpen()) {
                    connection = candidate;
                } else {
                    candidate.closeAsync();
                }
            }
        }
        if (connection == null) {
            try {
                connection = client.connect(StringCodec.UTF8, uri);
            } catch (RuntimeException ex) {
                throw new LockException("Cannot connect to Redis at " + description + ": " + ex.getMessage(), ex);
            }
        }
        return new SyncedConnection(connection, this, target);
    }

    void giveBack(String target, StatefulRedisConnection<String, String> connection) {
        synchronized (this) {
            Deque<StatefulRedisConnection<String, String>> free = idle.computeIfAbsent(target, t -> new ArrayDeque<>());
            if (!closed && connection.isOpen() && free.size() < MAX_IDLE_PER_TARGET) {
                free.addFirst(connection);
                return;
            }
        }
        connection.closeAsync();
    }

    void close() {
        synchronized (this) {
            closed = true;
            idle.values().forEach(free -> free.forEach(StatefulRedisConnection::close));
            idle.clear();
        }
    }
}
