package dev.distlock.core;

import dev.distlock.core.internal.engine.SafeLockListener;
import dev.distlock.core.internal.options.ConnectionSettings;
import dev.distlock.core.internal.options.LockSettings;
import io.lettuce.core.SslOptions;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable settings of a {@link LockClient}. Build with {@link #builder()}.
 *
 * <p>Exactly one topology is used: a single server ({@link Builder#uri(String)}, the default
 * {@code redis://localhost:6379}), a Sentinel group ({@link Builder#sentinel(String, String...)})
 * or a Cluster ({@link Builder#cluster(String...)}).
 */
public final class LockClientOptions {

    /** Default lease of watchdog-renewed holds. */
    public static final Duration DEFAULT_WATCHDOG_TIMEOUT = Duration.ofSeconds(30);

    /** Default bound on every Redis command. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(3);

    /** Default time a fair-lock waiter stays queued beyond its own wait before it is purged. */
    public static final Duration DEFAULT_FAIR_LOCK_WAIT_TIMEOUT = Duration.ofSeconds(5);

    /** Default delay before the first attempt to reconnect a lost connection. */
    public static final Duration DEFAULT_RECONNECT_DELAY_MIN = Duration.ofMillis(10);

    /** Default longest delay between two attempts to reconnect a lost connection. */
    public static final Duration DEFAULT_RECONNECT_DELAY_MAX = Duration.ofSeconds(1);

    // This class is the options' public face and their documentation. What they configure lives in
    // two internal values, each with the rules that check it: where Redis is and how to reach it,
    // and how the client's locks behave. Only the listeners are kept here.
    private final ConnectionSettings connection;
    private final LockSettings locks;
    private final List<LockListener> listeners;

    private LockClientOptions(Builder b) {
        this.connection = b.connection.build();
        this.locks = b.locks.build();
        this.listeners = List.copyOf(b.listeners);
    }

    /**
     * Returns a builder with every default set.
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** @return single-server URI (ignored when Sentinel or Cluster is set) */
    public String uri() {
        return connection.uri();
    }

    /** @return Sentinel master id, or {@code null} when Sentinel is not used */
    public @Nullable String sentinelMaster() {
        return connection.sentinelMaster();
    }

    /** @return Sentinel node URIs (empty when Sentinel is not used) */
    public List<String> sentinelNodes() {
        return connection.sentinelNodes();
    }

    /** @return Cluster seed node URIs (empty when Cluster is not used) */
    public List<String> clusterNodes() {
        return connection.clusterNodes();
    }

    /** @return lease of watchdog-renewed holds; renewals run every third of it */
    public Duration watchdogTimeout() {
        return locks.watchdogTimeout();
    }

    /**
     * Returns the bound on every call that does not wait for a lock. Such a call (an acquisition
     * without a wait, {@code unlock}, {@code forceUnlock}, inspection, {@code ping}) fails with a
     * {@link LockException} within this time (plus the connection timer's tick, about 0.1 s) even
     * when it sends several commands (a retried
     * release, several reads); only {@code replicaSync} adds its {@code WAIT} and, after a shortfall,
     * one more command to undo the grant. A call that waits keeps waiting through failed attempts
     * and returns within its wait plus two command timeouts (its last attempt, then leaving a fair
     * lock's queue, withdrawing a write claim or unlisting a waiter), three if the pub/sub
     * connection has to be opened during the wait. While the client reconnects (Redis restarted, a
     * failover, a killed connection) a call waits for the connection within the same deadline, or
     * within its wait when it waits for a lock, and then runs; if the deadline passes first it fails
     * with a {@link LockException} saying how long Redis was unreachable, and nothing of it is
     * written afterwards.
     * @return the command timeout
     */
    public Duration commandTimeout() {
        return locks.commandTimeout();
    }

    /** @return time a fair-lock waiter stays queued beyond its own wait before it is purged */
    public Duration fairLockWaitTimeout() {
        return locks.fairLockWaitTimeout();
    }

    /**
     * Returns the prefix prepended to every lock name to form its Redis key. A prefix with a hash
     * tag ({@code {app}:}) puts every lock of the client in one Cluster slot, so one master serves
     * them all; the client logs a warning when it is created with one for a Cluster.
     * @return the prefix
     */
    public String keyPrefix() {
        return locks.keyPrefix();
    }

    /** @return connection name shown by {@code CLIENT LIST}, or {@code null} */
    public @Nullable String clientName() {
        return connection.clientName();
    }

    /**
     * @return one listener that tells each of {@link #listeners()} in turn; a listener that throws
     *     is logged and does not keep the others from hearing the event
     */
    public LockListener listener() {
        return SafeLockListener.of(listeners);
    }

    /** @return the listeners told of every lock event of this client, in the order they were added */
    public List<LockListener> listeners() {
        return listeners;
    }

    /** @return replicas that must acknowledge an acquisition, {@code 0} when the guard is off */
    public int replicaSyncReplicas() {
        return locks.replicaSyncReplicas();
    }

    /** @return how long an acquisition waits for replica acknowledgement */
    public Duration replicaSyncTimeout() {
        return locks.replicaSyncTimeout();
    }

    /** @return user name for the data nodes, or {@code null} for none or the default user */
    public @Nullable String username() {
        return connection.username();
    }

    /** @return password for the data nodes, or {@code null} for none */
    public @Nullable String password() {
        return connection.password();
    }

    /** @return database index for the data nodes, or {@code null} to use the URI's (default 0) */
    public @Nullable Integer database() {
        return connection.database();
    }

    /** @return whether every node is reached over TLS (set by {@link Builder#ssl}); a {@code rediss://} URI uses TLS either way */
    public boolean ssl() {
        return connection.ssl();
    }

    /**
     * Returns the shared Lettuce resources the client uses, if any.
     * @return shared resources, or {@code null} when the client creates and owns its own
     */
    public @Nullable ClientResources clientResources() {
        return connection.clientResources();
    }

    /**
     * Returns the delay before the first attempt to reconnect a lost connection; each further
     * attempt waits twice as long as the one before, up to {@link #reconnectDelayMax()}.
     * @return the first reconnect delay
     */
    public Duration reconnectDelayMin() {
        return connection.reconnectDelayMin();
    }

    /**
     * Returns the longest delay between two attempts to reconnect a lost connection: once Redis
     * is back, the client reconnects within about this long. In a Cluster it is also the shortest
     * time between two topology refreshes that reconnects or redirects trigger.
     * @return the longest reconnect delay
     */
    public Duration reconnectDelayMax() {
        return connection.reconnectDelayMax();
    }

    /** @return Lettuce's TLS settings (trust and key material), or {@code null} for the JVM's defaults */
    public @Nullable SslOptions sslOptions() {
        return connection.sslOptions();
    }

    /** Builder of {@link LockClientOptions}; not thread-safe. */
    public static final class Builder {

        private final ConnectionSettings.Builder connection =
                new ConnectionSettings.Builder(DEFAULT_RECONNECT_DELAY_MIN, DEFAULT_RECONNECT_DELAY_MAX);
        private final LockSettings.Builder locks = new LockSettings.Builder(
                DEFAULT_WATCHDOG_TIMEOUT, DEFAULT_COMMAND_TIMEOUT, DEFAULT_FAIR_LOCK_WAIT_TIMEOUT);
        private final List<LockListener> listeners = new ArrayList<>();

        private Builder() {}

        /**
         * Sets the single server to use: {@code redis://[user:password@]host[:port][/db]} or
         * {@code rediss://} for TLS.
         * @param uri the server URI
         * @return this builder
         */
        public Builder uri(String uri) {
            connection.uri(uri);
            return this;
        }

        /**
         * Connects through Redis Sentinel and follows failovers.
         * @param masterId the monitored master's name
         * @param nodeUris sentinel URIs, {@code redis://host:port}
         * @return this builder
         */
        public Builder sentinel(String masterId, String... nodeUris) {
            connection.sentinel(masterId, nodeUris);
            return this;
        }

        /**
         * Sets the credentials of the data nodes (the server, the Sentinel-monitored master and its
         * replicas, or the Cluster nodes), for every topology; a URI that carries its own
         * credentials keeps them. Sentinels themselves authenticate only with the credentials in
         * their own URIs.
         * @param username user name (Redis 6 ACL), or {@code null} for the default user
         * @param password the password, or {@code null} for none
         * @return this builder
         */
        public Builder credentials(@Nullable String username, @Nullable String password) {
            connection.credentials(username, password);
            return this;
        }

        /**
         * Sets the database index of the data nodes for the single-server and Sentinel topologies;
         * a single-server URI that names a database other than 0 keeps it. Cluster supports only
         * database 0.
         * @param database index, 0 or more
         * @return this builder
         */
        public Builder database(int database) {
            connection.database(database);
            return this;
        }

        /**
         * Connects over TLS to every node: the server, the sentinels and the master and replicas
         * they name, or every Cluster node. A {@code rediss://} URI uses TLS for its own node
         * without this.
         * @param sslOptions Lettuce's TLS settings (trust and key material, protocols, ciphers),
         * also used by {@code rediss://} URIs; {@code null} for the JVM's default trust store
         * @return this builder
         */
        public Builder ssl(@Nullable SslOptions sslOptions) {
            connection.ssl(sslOptions);
            return this;
        }

        /**
         * Uses shared Lettuce resources (event loops, timers, command tracing and latency metrics)
         * instead of the client's own. The client does not shut shared resources down when it
         * closes; their owner does.
         * @param clientResources shared resources, or {@code null} for the client's own
         * @return this builder
         */
        public Builder clientResources(@Nullable ClientResources clientResources) {
            connection.clientResources(clientResources);
            return this;
        }

        /**
         * Sets how fast a lost connection is reconnected (default 10 ms, doubling up to 1 s): the
         * first attempt waits {@code min}, each further one twice as long as the one before, at
         * most {@code max}. Once Redis is back the client reconnects within about {@code max};
         * calls made meanwhile wait for the connection within their own deadline (see
         * {@link LockClientOptions#commandTimeout()}). A shorter {@code max} reconnects sooner at
         * the cost of more connection attempts against a server that is down. In a Cluster,
         * {@code max} is also the shortest time between two topology refreshes triggered by
         * reconnects or redirects. Applies to shared {@link #clientResources(ClientResources)} too:
         * the client's connections use this delay, not the resources' own.
         * @param min delay before the first attempt, positive
         * @param max longest delay between attempts, not shorter than {@code min}
         * @return this builder
         */
        public Builder reconnectDelay(Duration min, Duration max) {
            connection.reconnectDelay(min, max);
            return this;
        }

        /**
         * Connects to a Redis Cluster through the given seed nodes.
         * @param nodeUris seed node URIs, {@code redis://host:port}
         * @return this builder
         */
        public Builder cluster(String... nodeUris) {
            connection.cluster(nodeUris);
            return this;
        }

        /**
         * Sets the lease of watchdog-renewed holds (default 30 s).
         * @param timeout positive duration
         * @return this builder
         */
        public Builder watchdogTimeout(Duration timeout) {
            locks.watchdogTimeout(timeout);
            return this;
        }

        /**
         * Sets the bound on every call that does not wait for a lock (default 3 s); see
         * {@link LockClientOptions#commandTimeout()}.
         * @param timeout positive duration
         * @return this builder
         */
        public Builder commandTimeout(Duration timeout) {
            locks.commandTimeout(timeout);
            return this;
        }

        /**
         * Sets how long a fair-lock waiter stays queued beyond its own wait (default 5 s); a waiter
         * that died is purged from the queue once this passes.
         * @param timeout positive duration
         * @return this builder
         */
        public Builder fairLockWaitTimeout(Duration timeout) {
            locks.fairLockWaitTimeout(timeout);
            return this;
        }

        /**
         * Sets a prefix prepended to every lock name (default empty). Avoid a hash tag in it on a
         * Cluster ({@code {app}:} sends every lock to one slot).
         * @param prefix the prefix, may be empty
         * @return this builder
         */
        public Builder keyPrefix(String prefix) {
            locks.keyPrefix(prefix);
            return this;
        }

        /**
         * Sets the connection name shown by {@code CLIENT LIST}.
         * @param name the name, or {@code null} for none
         * @return this builder
         */
        public Builder clientName(@Nullable String name) {
            connection.clientName(name);
            return this;
        }

        /**
         * Sets the one listener told of every lock event of the client, replacing any added before.
         * @param listener the listener
         * @return this builder
         */
        public Builder listener(LockListener listener) {
            Objects.requireNonNull(listener, "'listener' must not be null");
            listeners.clear();
            listeners.add(listener);
            return this;
        }

        /**
         * Adds a listener told of every lock event of the client, after those added before. Each
         * listener hears every event even when another throws: what a listener throws is logged
         * and ignored, and never fails the lock operation.
         * @param listener the listener
         * @return this builder
         */
        public Builder addListener(LockListener listener) {
            listeners.add(Objects.requireNonNull(listener, "'listener' must not be null"));
            return this;
        }

        /**
         * After each acquisition, waits for {@code replicas} replicas to acknowledge it
         * ({@code WAIT}); if fewer do, the hold is released and the acquisition retried within the
         * caller's wait, after which the acquisition fails with a {@link LockException} giving the
         * numbers. Keep {@code timeout} below the command timeout, which also bounds {@code WAIT}.
         * Off by default.
         * @param replicas replicas required, at least 1
         * @param timeout how long to wait for them
         * @return this builder
         */
        public Builder replicaSync(int replicas, Duration timeout) {
            locks.replicaSync(replicas, timeout);
            return this;
        }

        /**
         * Builds the options.
         * @return immutable options
         */
        public LockClientOptions build() {
            return new LockClientOptions(this);
        }
    }
}
