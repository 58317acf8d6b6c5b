package dev.distlock.core.chaos;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.test.RedisCluster;
import dev.distlock.core.test.RedisSentinelGroup;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The Redis deployment of a chaos run, started from the test fixtures: its data nodes, how clients
 * connect to it, and the faults that make sense on it. Closing it stops every process it started.
 */
abstract class ChaosTopology implements AutoCloseable {

    static ChaosTopology start(String name) {
        return switch (name) {
            case "standalone" -> new Standalone(RedisServers.start());
            case "sentinel" -> new Sentinel(RedisSentinelGroup.start());
            case "cluster" -> new ChaosCluster(RedisCluster.start(3, 1));
            default ->
                throw new IllegalArgumentException(
                        "'chaos.topology' must be standalone, sentinel or cluster, was " + name);
        };
    }

    abstract String name();

    /** Adds {@code topology}, {@code uris} (and {@code master}) for a client JVM. */
    abstract void describe(Properties properties);

    abstract LockClientOptions.Builder connect(LockClientOptions.Builder builder);

    /** @return the servers that serve lock data (every master; on Sentinel the replica too) */
    abstract List<RedisServer> dataNodes();

    /** @return every Redis server of the deployment, to resume and heal whatever role it has now */
    List<RedisServer> allNodes() {
        return dataNodes();
    }

    abstract List<FaultType> faults();

    /** @return whether faults that stall a data node may make Sentinel fail over (and lose data) */
    boolean stallsMayLoseData() {
        return false;
    }

    /** Stops every process of the deployment. */
    @Override
    public abstract void close();

    /** Waits until the deployment serves again after the faults. */
    abstract void awaitHealthy();

    /**
     * Fails the master over to its replica and returns once the replica serves. A master that was
     * killed for it stays down ({@link #downNode()}) until {@link #rejoin()}, so that clients work
     * on the promoted replica for a while with the old master gone, as after a real crash.
     * @param rnd the nemesis's random
     * @return a description of the failover, after it completed
     */
    String failover(Random rnd) {
        throw new UnsupportedOperationException(name() + " has no failover");
    }

    /** @return the old master a failover killed and that has not rejoined yet, or null */
    RedisServer downNode() {
        return null;
    }

    /**
     * Starts the old master a failover killed again; it rejoins as a replica of the promoted one.
     * @return a description, after it replicates again
     */
    String rejoin() {
        throw new IllegalStateException("no node is down");
    }

    /**
     * Stops a node at once, as a crash would: no wait for its replicas to catch up (which Redis 7
     * does on SIGTERM), so writes it acknowledged but had not replicated are lost.
     */
    static void kill(RedisServer node) {
        try {
            if (RedisServers.majorVersion() >= 7) {
                node.command("SHUTDOWN", "NOSAVE", "NOW");
            } else {
                node.command("SHUTDOWN", "NOSAVE");
            }
        } catch (RuntimeException connectionClosed) {
            // the reply to SHUTDOWN is the connection closing
        }
        node.stop();
    }

    static void awaitTrue(Duration timeout, String what, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // a node is still starting or electing
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout + " waiting for " + what);
            }
            sleep(100);
        }
    }

    /** @return a description of the migration, after it completed */
    String migrateSlot(Random rnd) {
        throw new UnsupportedOperationException(name() + " has no slots");
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    /**
     * Called after a data node was started again (restart, outage): puts it back in its role.
     * @param node the node
     */
    void restarted(RedisServer node) {}

    static final class Standalone extends ChaosTopology {

        private final RedisServer server;

        Standalone(RedisServer server) {
            this.server = server;
        }

        @Override
        String name() {
            return "standalone";
        }

        @Override
        void describe(Properties properties) {
            properties.setProperty("topology", "standalone");
            properties.setProperty("uris", server.uri());
        }

        @Override
        LockClientOptions.Builder connect(LockClientOptions.Builder builder) {
            return builder.uri(server.uri());
        }

        @Override
        List<RedisServer> dataNodes() {
            return List.of(server);
        }

        @Override
        List<FaultType> faults() {
            return List.of(
                    FaultType.REDIS_PAUSE,
                    FaultType.JVM_PAUSE,
                    FaultType.KILL_COMMAND,
                    FaultType.KILL_STORM,
                    FaultType.KILL_PUBSUB,
                    FaultType.CLIENT_PAUSE,
                    FaultType.ACL_SCRIPTS,
                    FaultType.ACL_CHANNELS,
                    FaultType.RESTART,
                    FaultType.OUTAGE);
        }

        @Override
        void awaitHealthy() {
            server.start();
        }

        @Override
        public void close() {
            server.stop();
        }
    }

    static final class Sentinel extends ChaosTopology {

        private final RedisSentinelGroup group;
        private volatile RedisServer down;

        Sentinel(RedisSentinelGroup group) {
            this.group = group;
        }

        @Override
        String name() {
            return "sentinel";
        }

        @Override
        void describe(Properties properties) {
            properties.setProperty("topology", "sentinel");
            properties.setProperty("uris", String.join(",", group.sentinelUris()));
            properties.setProperty("master", RedisSentinelGroup.MASTER_ID);
        }

        @Override
        LockClientOptions.Builder connect(LockClientOptions.Builder builder) {
            return builder.sentinel(RedisSentinelGroup.MASTER_ID, group.sentinelUris());
        }

        @Override
        List<RedisServer> dataNodes() {
            return List.of(group.master(), group.replica());
        }

        @Override
        List<FaultType> faults() {
            return List.of(
                    FaultType.REDIS_PAUSE,
                    FaultType.JVM_PAUSE,
                    FaultType.KILL_COMMAND,
                    FaultType.KILL_STORM,
                    FaultType.KILL_PUBSUB,
                    FaultType.CLIENT_PAUSE,
                    FaultType.ACL_SCRIPTS,
                    FaultType.ACL_CHANNELS,
                    FaultType.RESTART,
                    FaultType.OUTAGE,
                    FaultType.FAILOVER);
        }

        @Override
        boolean stallsMayLoseData() {
            return true;
        }

        int masterPort() {
            return group.currentMasterPort();
        }

        /**
         * Gives a restarted node the role the sentinels give it, as a real deployment's restart does:
         * the sentinels rewrite a node's config file at every failover, while these nodes start again
         * from their first command line. Without this, a promoted replica comes back as a replica of
         * the other node, itself a replica now, and the group has no master until the sentinels fail
         * over again, long after the restart.
         */
        @Override
        void restarted(RedisServer node) {
            int master = masterPort();
            if (node.port() == master) {
                node.command("REPLICAOF", "NO", "ONE");
            } else {
                node.command("REPLICAOF", node.host(), Integer.toString(master));
            }
        }

        @Override
        void awaitHealthy() {
            if (down != null) {
                rejoin();
                return;
            }
            dataNodes().forEach(RedisServer::start);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                try {
                    int port = masterPort();
                    RedisServer master = dataNodes().stream()
                            .filter(n -> n.port() == port)
                            .findFirst()
                            .orElseThrow();
                    RedisServer replica = dataNodes().stream()
                            .filter(n -> n != master)
                            .findFirst()
                            .orElseThrow();
                    if (master.command("ROLE").startsWith("master")
                            && replica.command("INFO", "replication").contains("master_link_status:up")
                            && replica.command("INFO", "replication").contains("master_port:" + port)) {
                        return;
                    }
                } catch (RuntimeException notYet) {
                    // a sentinel or a node is still restarting
                }
                sleep(200);
            }
            throw new IllegalStateException("Sentinel group did not settle within 60 s");
        }

        /**
         * Half the time {@code SENTINEL FAILOVER} (a graceful switch), half the time a crash of the
         * master: the sentinels notice it down after 1 s and promote the replica, and the old master
         * stays down until {@link #rejoin()}.
         */
        @Override
        String failover(Random rnd) {
            int before = masterPort();
            if (rnd.nextBoolean()) {
                RedisServer master = nodeOn(before);
                kill(master);
                down = master;
                awaitTrue(Duration.ofSeconds(30), "the sentinels to promote the replica", () -> {
                    int now = masterPort();
                    return now != before && nodeOn(now).command("ROLE").startsWith("master");
                });
                return "master " + before + " killed, sentinels promoted " + masterPort();
            }
            String sentinel = group.sentinelUris()[0];
            RedisClient client = RedisClient.create(RedisURI.create(sentinel));
            try (StatefulRedisSentinelConnection<String, String> connection = client.connectSentinel()) {
                connection.sync().failover(RedisSentinelGroup.MASTER_ID);
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (masterPort() == before && System.nanoTime() < deadline) {
                sleep(100);
            }
            awaitHealthy();
            return "SENTINEL FAILOVER " + before + "->" + masterPort();
        }

        @Override
        RedisServer downNode() {
            return down;
        }

        @Override
        String rejoin() {
            RedisServer node = down;
            node.start();
            restarted(node);
            down = null;
            awaitHealthy();
            return node + " started again as a replica of " + masterPort();
        }

        private RedisServer nodeOn(int port) {
            return dataNodes().stream()
                    .filter(n -> n.port() == port)
                    .findFirst()
                    .orElseThrow();
        }

        @Override
        public void close() {
            group.close();
        }
    }
}
