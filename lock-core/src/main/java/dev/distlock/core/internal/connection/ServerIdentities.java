package dev.distlock.core.internal.connection;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Names the product and version of each server the client writes to, from the {@code INFO} reply it
 * reads at connect, in one INFO line per server (and again when a server comes back as another
 * product or version): support questions start with "which server, which version". Valkey answers
 * {@code redis_version} with the Redis version it is compatible with, so its own
 * {@code server_name} and {@code valkey_version} come first.
 */
final class ServerIdentities {

    private static final Logger log = LoggerFactory.getLogger(ServerIdentities.class);

    /** The identity last logged per server, so that a reconnect to an unchanged server logs nothing. */
    private final Map<String, String> logged = new ConcurrentHashMap<>();

    /**
     * Logs the server's identity if it is new for that server.
     * @param server {@code host:port}
     * @param info an {@code INFO} reply that includes its server section
     */
    void record(String server, String info) {
        String identity = identity(info);
        if (identity != null && !identity.equals(logged.put(server, identity))) {
            log.info("Distlock writes to {} at {}", identity, server);
        }
    }

    /**
     * Returns the product and version an {@code INFO} reply names, e.g. {@code Valkey 8.1.1}.
     * @param info an {@code INFO} reply
     * @return the identity, or {@code null} when the reply has no server section
     */
    static @Nullable String identity(String info) {
        String valkey = InfoReply.field(info, "valkey_version");
        if (valkey != null || "valkey".equals(InfoReply.field(info, "server_name"))) {
            return "Valkey " + (valkey != null ? valkey : InfoReply.field(info, "redis_version"));
        }
        String redis = InfoReply.field(info, "redis_version");
        return redis == null ? null : "Redis " + redis;
    }
}
