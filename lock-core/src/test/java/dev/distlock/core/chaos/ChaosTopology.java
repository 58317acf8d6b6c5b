package dev.distlock.core.chaos;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.test.RedisCluster;
import dev.distlock.core.test.RedisSentinelGroup;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
            case "cluster" -> new Cluster(RedisCluster.start(3));
            default ->
                throw new IllegalArgumentException(
                        "'chaos.topology' must be standalone, sentinel or cluster, was " + name);
        };
    }

    abstract String name();

    /** Adds {@code topology}, {@code uris} (and {@code master}) for a client JVM. */
    abstract void describe(Properties properties);

    abstract LockClientOptions.Builder connect(LockClientOptions.Builder builder);

    /** @return the servers that hold lock data (every master and replica) */
    abstract List<RedisServer> dataNodes();

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

    /** @return a description of the failover, after it completed */
    String failover() {
        throw new UnsupportedOperationException(name() + " has no failover");
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

        @Override
        String failover() {
            int before = masterPort();
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
            return before + "->" + masterPort();
        }

        @Override
        public void close() {
            group.close();
        }
    }

    static final class Cluster extends ChaosTopology {

        private final RedisCluster cluster;
        private final Map<RedisServer, String> ids = new HashMap<>();

        Cluster(RedisCluster cluster) {
            this.cluster = cluster;
            cluster.masters().forEach(node -> ids.put(node, node.command("CLUSTER", "MYID")));
        }

        @Override
        String name() {
            return "cluster";
        }

        @Override
        void describe(Properties properties) {
            properties.setProperty("topology", "cluster");
            properties.setProperty("uris", String.join(",", cluster.uris()));
        }

        @Override
        LockClientOptions.Builder connect(LockClientOptions.Builder builder) {
            return builder.cluster(cluster.uris());
        }

        @Override
        List<RedisServer> dataNodes() {
            return cluster.masters();
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
                    FaultType.SLOT_MIGRATION);
        }

        @Override
        void awaitHealthy() {
            cluster.awaitHealthy(Duration.ofSeconds(60));
        }

        /**
         * Moves the slot of a random lock, keys and all, to another master the way {@code redis-cli
         * --cluster reshard} does: IMPORTING/MIGRATING, a pause in which clients meet ASK and
         * TRYAGAIN, MIGRATE of every key, then SETSLOT NODE on every master.
         */
        @Override
        String migrateSlot(Random rnd) {
            List<String> names = ChaosOperations.allNames();
            String name = names.get(rnd.nextInt(names.size()));
            int slot = SlotHash.getSlot(ChaosRun.KEY_PREFIX + name);
            RedisServer source = ownerOf(slot);
            List<RedisServer> others = new ArrayList<>(cluster.masters());
            others.remove(source);
            RedisServer target = others.get(rnd.nextInt(others.size()));
            String value = Integer.toString(slot);
            target.command("CLUSTER", "SETSLOT", value, "IMPORTING", ids.get(source));
            source.command("CLUSTER", "SETSLOT", value, "MIGRATING", ids.get(target));
            sleep(200 + rnd.nextInt(1300));
            int moved = 0;
            for (int round = 0; round < 50; round++) {
                String reply = source.command("CLUSTER", "GETKEYSINSLOT", value, "100");
                List<String> keys = reply.isBlank() ? List.of() : List.of(reply.split("\n"));
                if (keys.isEmpty()) {
                    break;
                }
                List<String> migrate = new ArrayList<>(
                        List.of("MIGRATE", target.host(), Integer.toString(target.port()), "", "0", "5000", "KEYS"));
                migrate.addAll(keys);
                source.command(migrate.toArray(String[]::new));
                moved += keys.size();
            }
            // The importing node first: it bumps its epoch and becomes the owner everyone else follows.
            target.command("CLUSTER", "SETSLOT", value, "NODE", ids.get(target));
            source.command("CLUSTER", "SETSLOT", value, "NODE", ids.get(target));
            for (RedisServer node : others) {
                if (node != target) {
                    node.command("CLUSTER", "SETSLOT", value, "NODE", ids.get(target));
                }
            }
            return "slot " + slot + " of '" + name + "' " + source.port() + "->" + target.port() + " with " + moved
                    + " keys";
        }

        private RedisServer ownerOf(int slot) {
            String reply = cluster.masters().get(0).command("CLUSTER", "NODES");
            for (String line : reply.split("\n")) {
                String[] fields = line.trim().split(" ");
                for (int i = 8; i < fields.length; i++) {
                    if (fields[i].startsWith("[")) {
                        continue;
                    }
                    String[] range = fields[i].split("-");
                    int first = Integer.parseInt(range[0]);
                    int last = range.length > 1 ? Integer.parseInt(range[1]) : first;
                    if (first <= slot && slot <= last) {
                        return ids.entrySet().stream()
                                .filter(e -> e.getValue().equals(fields[0]))
                                .findFirst()
                                .orElseThrow()
                                .getKey();
                    }
                }
            }
            throw new IllegalStateException("no owner for slot " + slot);
        }

        @Override
        public void close() {
            cluster.close();
        }
    }
}
