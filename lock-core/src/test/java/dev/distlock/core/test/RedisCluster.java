package dev.distlock.core.test;

import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of masters only, for tests: starts {@code redis-server --cluster-enabled yes}
 * processes, gives each an equal range of the 16384 slots with {@code CLUSTER ADDSLOTS}, joins them
 * with {@code CLUSTER MEET} and waits for {@code cluster_state:ok}. Close it to stop every node.
 */
public final class RedisCluster implements AutoCloseable {

    private static final int SLOTS = 16384;

    private final List<RedisServer> masters;
    private final List<List<RedisServer>> replicas = new ArrayList<>();

    private RedisCluster(List<RedisServer> masters) {
        this.masters = masters;
    }

    /**
     * Starts a cluster with replicas.
     * @param masterCount number of masters, at least 3
     * @param replicasPerMaster replicas of each master
     * @return a cluster whose state is ok and whose replicas are in sync
     */
    public static RedisCluster start(int masterCount, int replicasPerMaster) {
        RedisCluster cluster = start(masterCount);
        try {
            RedisServer seed = cluster.masters.get(0);
            for (int i = 0; i < masterCount; i++) {
                String masterId = cluster.masters.get(i).command("CLUSTER", "MYID");
                List<RedisServer> ofMaster = new ArrayList<>();
                cluster.replicas.add(ofMaster);
                for (int r = 0; r < replicasPerMaster; r++) {
                    RedisServer replica = startNode();
                    ofMaster.add(replica);
                    expectOk(seed, seed.command("CLUSTER", "MEET", replica.host(), Integer.toString(replica.port())));
                    // REPLICATE needs the replica to know the master, which gossip after MEET tells it.
                    awaitTrue(() -> replica.command("CLUSTER", "NODES").contains(masterId));
                    expectOk(replica, replica.command("CLUSTER", "REPLICATE", masterId));
                }
            }
            int total = masterCount * (1 + replicasPerMaster);
            awaitTrue(() -> cluster.allNodes().stream().allMatch(node -> {
                String info = node.command("CLUSTER", "INFO");
                return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + total);
            }));
            awaitTrue(() -> cluster.replicas.stream()
                    .flatMap(List::stream)
                    .allMatch(replica -> replica.command("INFO", "replication").contains("master_link_status:up")));
            return cluster;
        } catch (RuntimeException ex) {
            cluster.close();
            throw ex;
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Cluster setup did not converge within 20 s");
            }
            try {
                TimeUnit.MILLISECONDS.sleep(50);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while setting up the cluster", ex);
            }
        }
    }

    private List<RedisServer> allNodes() {
        List<RedisServer> all = new ArrayList<>(masters);
        replicas.forEach(all::addAll);
        return all;
    }

    /**
     * Returns the replicas of a master.
     * @param masterIndex index into {@link #masters()}
     * @return its replicas (empty for a cluster without replicas)
     */
    public List<RedisServer> replicasOf(int masterIndex) {
        return masterIndex < replicas.size() ? List.copyOf(replicas.get(masterIndex)) : List.of();
    }

    /**
     * Starts a cluster.
     * @param masterCount number of masters, at least 3
     * @return a cluster whose state is ok
     */
    public static RedisCluster start(int masterCount) {
        List<RedisServer> nodes = new ArrayList<>();
        RedisCluster cluster = new RedisCluster(nodes);
        try {
            for (int i = 0; i < masterCount; i++) {
                nodes.add(startNode());
            }
            for (int i = 0; i < masterCount; i++) {
                RedisServer node = nodes.get(i);
                // Distinct epochs up front, as redis-cli does, so the nodes need not resolve collisions.
                node.command("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
                List<String> args = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
                for (int slot = firstSlot(i, masterCount); slot <= lastSlot(i, masterCount); slot++) {
                    args.add(Integer.toString(slot));
                }
                expectOk(node, node.command(args.toArray(String[]::new)));
            }
            for (int i = 1; i < masterCount; i++) {
                RedisServer node = nodes.get(i);
                expectOk(
                        nodes.get(0),
                        nodes.get(0).command("CLUSTER", "MEET", node.host(), Integer.toString(node.port())));
            }
            cluster.awaitHealthy(Duration.ofSeconds(20));
            return cluster;
        } catch (RuntimeException ex) {
            cluster.close();
            throw ex;
        }
    }

    private static RedisServer startNode() {
        // The cluster bus listens on port + 10000, so a node on a port above 55535 cannot start;
        // RedisServers.start retries on another port when that happens.
        return RedisServers.start(
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000");
    }

    private static int firstSlot(int index, int count) {
        return index * SLOTS / count;
    }

    private static int lastSlot(int index, int count) {
        return (index + 1) * SLOTS / count - 1;
    }

    private static void expectOk(RedisServer node, String reply) {
        if (!"OK".equals(reply)) {
            throw new IllegalStateException(node + " refused a cluster command: " + reply);
        }
    }

    /**
     * Waits until every node reports {@code cluster_state:ok} and knows every other node.
     * @param timeout how long to wait
     */
    public void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean healthy = masters.stream().allMatch(node -> {
                String info = node.command("CLUSTER", "INFO");
                return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + masters.size());
            });
            if (healthy) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Cluster did not become healthy within " + timeout + ": "
                        + masters.get(0).command("CLUSTER", "INFO"));
            }
            try {
                TimeUnit.MILLISECONDS.sleep(50);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the cluster", ex);
            }
        }
    }

    /** @return the masters, in slot order */
    public List<RedisServer> masters() {
        return List.copyOf(masters);
    }

    /** @return every node's {@code redis://host:port}, as cluster seeds */
    public String[] uris() {
        return masters.stream().map(RedisServer::uri).toArray(String[]::new);
    }

    /**
     * Returns the index of the master that serves a key.
     * @param key a key
     * @return index into {@link #masters()}
     */
    public int masterIndexOf(String key) {
        int slot = SlotHash.getSlot(key);
        for (int i = 0; i < masters.size(); i++) {
            if (slot <= lastSlot(i, masters.size())) {
                return i;
            }
        }
        throw new IllegalStateException("slot " + slot + " is not served");
    }

    /**
     * Returns the master that serves a key.
     * @param key a key
     * @return its master
     */
    public RedisServer masterOf(String key) {
        return masters.get(masterIndexOf(key));
    }

    /**
     * Returns a master that does not serve a key: the next one after its own, e.g. to migrate its slot to.
     * @param key a key
     * @return another master
     */
    public RedisServer otherMasterThan(String key) {
        return masters.get((masterIndexOf(key) + 1) % masters.size());
    }

    /**
     * Gives a slot that holds no keys to another master, as the end of a slot migration does, and
     * waits until every node agrees. Clients with a cached topology then get {@code MOVED}.
     * @param slot the slot
     * @param to its new master
     */
    public void moveEmptySlot(int slot, RedisServer to) {
        String target = to.command("CLUSTER", "MYID");
        String value = Integer.toString(slot);
        // The new owner first, then everyone else, so no node is left without an owner to redirect to.
        to.command("CLUSTER", "SETSLOT", value, "NODE", target);
        // Without a higher config epoch the old owner's claim can win the gossip and undo the move.
        to.command("CLUSTER", "BUMPEPOCH");
        masters.stream()
                .filter(node -> node != to)
                .forEach(node -> node.command("CLUSTER", "SETSLOT", value, "NODE", target));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (int round = 1; !masters.stream().allMatch(node -> owner(node, slot).equals(target)); round++) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Nodes do not agree that slot " + slot + " moved to " + to);
            }
            if (round % 10 == 0) {
                // A node that heard the old owner's stale claim after its SETSLOT may keep it while that
                // claim's epoch is the higher one: telling it again settles it.
                masters.stream()
                        .filter(node -> !owner(node, slot).equals(target))
                        .forEach(node -> node.command("CLUSTER", "SETSLOT", value, "NODE", target));
            }
            try {
                TimeUnit.MILLISECONDS.sleep(50);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while moving slot " + slot, ex);
            }
        }
    }

    private static String owner(RedisServer node, int slot) {
        // CLUSTER NODES: <id> <addr> <flags> <master> <ping> <pong> <epoch> <link> <slot or range>...
        for (String line : node.command("CLUSTER", "NODES").split("\n")) {
            String[] fields = line.trim().split(" ");
            for (int i = 8; i < fields.length; i++) {
                if (fields[i].startsWith("[")) {
                    continue;
                }
                String[] range = fields[i].split("-");
                int first = Integer.parseInt(range[0]);
                int last = range.length > 1 ? Integer.parseInt(range[1]) : first;
                if (first <= slot && slot <= last) {
                    return fields[0];
                }
            }
        }
        return "";
    }

    @Override
    public void close() {
        allNodes().forEach(RedisServer::stop);
    }
}
