package dev.distlock.spring.autoconfigure;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Where the auto-configured {@link dev.distlock.core.LockClient} connects. The starter defines one
 * from {@code distlock.redis.*} when a Distlock connection is set there, else from Spring Boot's
 * {@code DataRedisConnectionDetails} (so {@code spring.data.redis.*}, a Testcontainers
 * {@code @ServiceConnection} or Docker Compose), else {@code localhost:6379}. Define a bean of this
 * type to connect elsewhere, for example to a Testcontainers container without spring-data-redis on
 * the classpath; it also applies to the clients of {@code distlock.redlock.nodes} (credentials and
 * TLS).
 *
 * <p>Exactly one of {@link #getSentinel()} and {@link #getCluster()} may be non-{@code null};
 * when both are {@code null}, {@link #getStandalone()} is used.
 */
public interface DistlockConnectionDetails extends ConnectionDetails {

    /**
     * Login username of the data nodes.
     * @return the username, or {@code null} for none or the default user
     */
    default @Nullable String getUsername() {
        return null;
    }

    /**
     * Login password of the data nodes.
     * @return the password, or {@code null} for none
     */
    default @Nullable String getPassword() {
        return null;
    }

    /**
     * TLS material of every connection (the data nodes and the sentinels).
     * @return the bundle, or {@code null} to connect without TLS
     */
    default @Nullable SslBundle getSslBundle() {
        return null;
    }

    /**
     * Single-server connection, used when neither Sentinel nor Cluster is set.
     * @return the server
     */
    default Standalone getStandalone() {
        return Standalone.of("localhost", 6379, 0);
    }

    /**
     * Sentinel connection.
     * @return the sentinel settings, or {@code null}
     */
    default @Nullable Sentinel getSentinel() {
        return null;
    }

    /**
     * Cluster connection.
     * @return the cluster settings, or {@code null}
     */
    default @Nullable Cluster getCluster() {
        return null;
    }

    /** A single Redis server. */
    interface Standalone {

        /** @return the host */
        String getHost();

        /** @return the port */
        int getPort();

        /** @return the database index */
        default int getDatabase() {
            return 0;
        }

        /**
         * Creates a server description.
         * @param host the host
         * @param port the port
         * @param database the database index
         * @return the description
         */
        static Standalone of(String host, int port, int database) {
            return new Standalone() {
                @Override
                public String getHost() {
                    return host;
                }

                @Override
                public int getPort() {
                    return port;
                }

                @Override
                public int getDatabase() {
                    return database;
                }
            };
        }
    }

    /** A Sentinel-monitored master. */
    interface Sentinel {

        /** @return the name of the master */
        String getMaster();

        /** @return the sentinels */
        List<Node> getNodes();

        /** @return the database index of the master */
        default int getDatabase() {
            return 0;
        }

        /** @return the username of the sentinels themselves, or {@code null} */
        default @Nullable String getUsername() {
            return null;
        }

        /** @return the password of the sentinels themselves, or {@code null} */
        default @Nullable String getPassword() {
            return null;
        }

        /**
         * Creates a Sentinel description.
         * @param master the name of the master
         * @param nodes the sentinels
         * @param database the database index of the master
         * @param username the username of the sentinels themselves, or {@code null}
         * @param password the password of the sentinels themselves, or {@code null}
         * @return the description
         */
        static Sentinel of(
                String master, List<Node> nodes, int database, @Nullable String username, @Nullable String password) {
            return new Sentinel() {
                @Override
                public String getMaster() {
                    return master;
                }

                @Override
                public List<Node> getNodes() {
                    return nodes;
                }

                @Override
                public int getDatabase() {
                    return database;
                }

                @Override
                public @Nullable String getUsername() {
                    return username;
                }

                @Override
                public @Nullable String getPassword() {
                    return password;
                }
            };
        }
    }

    /** A Redis Cluster. */
    interface Cluster {

        /** @return the seed nodes */
        List<Node> getNodes();
    }

    /**
     * A host and port.
     * @param host the host
     * @param port the port
     */
    record Node(String host, int port) {}
}
