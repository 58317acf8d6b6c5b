package dev.distlock.core.internal.options;

import io.lettuce.core.SslOptions;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where Redis is and how the client reaches it: the topology (one server, a Sentinel group or a
 * Cluster), the data nodes' credentials and database, TLS, shared Lettuce resources, the reconnect
 * back-off and the connection name. {@link Builder#build()} refuses combinations that no topology
 * supports.
 *
 * @param uri single-server URI (ignored when Sentinel or Cluster is set)
 * @param sentinelMaster Sentinel master id, or {@code null} when Sentinel is not used
 * @param sentinelNodes Sentinel node URIs (empty when Sentinel is not used)
 * @param clusterNodes Cluster seed node URIs (empty when Cluster is not used)
 * @param username user name of the data nodes, or {@code null}
 * @param password password of the data nodes, or {@code null}
 * @param database database index of the data nodes, or {@code null} for the URI's
 * @param ssl whether every node is reached over TLS
 * @param sslOptions Lettuce's TLS settings, or {@code null} for the JVM's defaults
 * @param clientResources shared resources, or {@code null} for the client's own
 * @param reconnectDelayMin first reconnect delay
 * @param reconnectDelayMax longest reconnect delay
 * @param clientName connection name, or {@code null}
 */
public record ConnectionSettings(
        String uri,
        @Nullable String sentinelMaster,
        List<String> sentinelNodes,
        List<String> clusterNodes,
        @Nullable String username,
        @Nullable String password,
        @Nullable Integer database,
        boolean ssl,
        @Nullable SslOptions sslOptions,
        @Nullable ClientResources clientResources,
        Duration reconnectDelayMin,
        Duration reconnectDelayMax,
        @Nullable String clientName) {

    /** Default single server. */
    public static final String DEFAULT_URI = "redis://localhost:6379";

    /** Collects connection settings, checking each as it is set; not thread-safe. */
    public static final class Builder {

        private String uri = DEFAULT_URI;
        private @Nullable String sentinelMaster;
        private List<String> sentinelNodes = List.of();
        private List<String> clusterNodes = List.of();
        private @Nullable String username;
        private @Nullable String password;
        private @Nullable Integer database;
        private boolean ssl;
        private @Nullable SslOptions sslOptions;
        private @Nullable ClientResources clientResources;
        private Duration reconnectDelayMin;
        private Duration reconnectDelayMax;
        private @Nullable String clientName;

        /**
         * Starts from the default server and the given reconnect back-off.
         * @param reconnectDelayMin default first reconnect delay
         * @param reconnectDelayMax default longest reconnect delay
         */
        public Builder(Duration reconnectDelayMin, Duration reconnectDelayMax) {
            this.reconnectDelayMin = reconnectDelayMin;
            this.reconnectDelayMax = reconnectDelayMax;
        }

        /** @param uri the single server's URI, not blank */
        public void uri(String uri) {
            this.uri = Arguments.requireText(uri, "uri");
        }

        /**
         * @param masterId the monitored master's name, not blank
         * @param nodeUris at least one sentinel URI
         */
        public void sentinel(String masterId, String... nodeUris) {
            this.sentinelMaster = Arguments.requireText(masterId, "masterId");
            this.sentinelNodes = Arguments.requireNodes(nodeUris, "nodeUris");
        }

        /** @param nodeUris at least one seed node URI */
        public void cluster(String... nodeUris) {
            this.clusterNodes = Arguments.requireNodes(nodeUris, "nodeUris");
        }

        /**
         * @param username user name, or {@code null} for the default user
         * @param password password, required when {@code username} is set
         */
        public void credentials(@Nullable String username, @Nullable String password) {
            if (username != null && password == null) {
                throw new IllegalArgumentException("'password' must not be null when 'username' is set");
            }
            this.username = username;
            this.password = password;
        }

        /** @param database index, 0 or more */
        public void database(int database) {
            if (database < 0) {
                throw new IllegalArgumentException("'database' must not be negative, was " + database);
            }
            this.database = database;
        }

        /** @param sslOptions TLS settings, or {@code null} for the JVM's defaults */
        public void ssl(@Nullable SslOptions sslOptions) {
            this.ssl = true;
            this.sslOptions = sslOptions;
        }

        /** @param clientResources shared resources, or {@code null} for the client's own */
        public void clientResources(@Nullable ClientResources clientResources) {
            this.clientResources = clientResources;
        }

        /**
         * @param min first delay, positive
         * @param max longest delay, not shorter than {@code min}
         */
        public void reconnectDelay(Duration min, Duration max) {
            Arguments.requirePositive(min, "reconnectDelay min");
            Arguments.requirePositive(max, "reconnectDelay max");
            if (max.compareTo(min) < 0) {
                throw new IllegalArgumentException(
                        "'reconnectDelay max' must not be shorter than its min, was " + max + " < " + min);
            }
            this.reconnectDelayMin = min;
            this.reconnectDelayMax = max;
        }

        /** @param name connection name, or {@code null} for none */
        public void clientName(@Nullable String name) {
            this.clientName = name;
        }

        /**
         * Checks that one topology is chosen and that it supports the settings.
         * @return the settings
         */
        public ConnectionSettings build() {
            if (sentinelMaster != null && !clusterNodes.isEmpty()) {
                throw new IllegalStateException("Choose either sentinel(...) or cluster(...), not both");
            }
            if (!clusterNodes.isEmpty() && database != null && database != 0) {
                throw new IllegalStateException("database(" + database + ") is not supported with cluster(...): "
                        + "Redis Cluster has only database 0");
            }
            return new ConnectionSettings(
                    uri,
                    sentinelMaster,
                    sentinelNodes,
                    clusterNodes,
                    username,
                    password,
                    database,
                    ssl,
                    sslOptions,
                    clientResources,
                    reconnectDelayMin,
                    reconnectDelayMax,
                    clientName);
        }
    }
}
