package dev.distlock.core.chaos;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.test.RedisCluster;
import dev.distlock.core.test.RedisServer;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.stream.Stream;

/**
 * A Cluster of three masters with a replica each. The harness keeps track of which node of each
 * shard is the master now: a failover kills a master and promotes its replica, and the old master
 * rejoins later as the new master's replica. Slot migrations move keys in whole or in batches
 * smaller than a lock has.
 */
final class ChaosCluster extends ChaosTopology {

    private final RedisCluster cluster;
    private final Map<RedisServer, String> ids = new HashMap<>();
    /** Per shard, the master now and its replica. */
    private final List<RedisServer[]> shards = new ArrayList<>();

    private volatile RedisServer down;
    private int failovers;

    ChaosCluster(RedisCluster cluster) {
        this.cluster = cluster;
        for (int i = 0; i < cluster.masters().size(); i++) {
            RedisServer master = cluster.masters().get(i);
            RedisServer replica = cluster.replicasOf(i).get(0);
            shards.add(new RedisServer[] {master, replica});
            ids.put(master, master.command("CLUSTER", "MYID"));
            ids.put(replica, replica.command("CLUSTER", "MYID"));
        }
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

    /** @return the masters now */
    @Override
    synchronized List<RedisServer> dataNodes() {
        return shards.stream().map(shard -> shard[0]).toList();
    }

    @Override
    synchronized List<RedisServer> allNodes() {
        List<RedisServer> all = new ArrayList<>();
        shards.forEach(shard -> all.addAll(List.of(shard)));
        return all;
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
                FaultType.SLOT_MIGRATION,
                FaultType.FAILOVER);
    }

    @Override
    void awaitHealthy() {
        if (down != null) {
            rejoin();
        }
        allNodes().forEach(RedisServer::start);
        int total = allNodes().size();
        awaitTrue(Duration.ofSeconds(60), "every node of the cluster to be ok", () -> allNodes().stream()
                .allMatch(node -> {
                    String info = node.command("CLUSTER", "INFO");
                    return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + total);
                }));
        for (RedisServer[] shard : List.copyOf(shards)) {
            awaitReplica(shard[1], shard[0]);
        }
    }

    /**
     * Kills the master serving a lock's slot (a waiter-line lock's, mostly: where callers wait) and
     * waits until its replica serves the slot: promoted by the cluster once it finds the master
     * failed (the node timeout, 5 s), or at once by {@code CLUSTER FAILOVER FORCE} on the replica.
     * The old master stays down until {@link #rejoin()}.
     */
    @Override
    String failover(Random rnd) {
        // Mostly the line locks' masters in turn, where callers of every client wait in line.
        String name = rnd.nextInt(4) > 0
                ? ChaosOperations.LINES.get(failovers++ % ChaosOperations.LINES.size())
                : ChaosOperations.allNamesAndSemaphores()
                        .get(rnd.nextInt(ChaosOperations.allNamesAndSemaphores().size()));
        int slot = SlotHash.getSlot(ChaosRun.KEY_PREFIX + name);
        RedisServer[] shard = shardOf(ownerOf(slot));
        RedisServer master = shard[0];
        RedisServer replica = shard[1];
        boolean forced = rnd.nextBoolean();
        long start = System.currentTimeMillis();
        kill(master);
        synchronized (this) {
            shard[0] = replica;
            shard[1] = master;
            down = master;
        }
        if (forced) {
            awaitTrue(Duration.ofSeconds(10), "CLUSTER FAILOVER FORCE to be accepted", () -> "OK"
                    .equals(replica.command("CLUSTER", "FAILOVER", "FORCE")));
        }
        String replicaId = ids.get(replica);
        awaitTrue(
                Duration.ofSeconds(60),
                "the replica of " + master + " to serve slot " + slot,
                () -> replica.command("ROLE").startsWith("master")
                        && dataNodes().stream()
                                .allMatch(
                                        node -> node.command("CLUSTER", "INFO").contains("cluster_state:ok")
                                                && ownerIn(node, slot).equals(replicaId)));
        return "master " + master.port() + " serving slot " + slot + " of '" + name + "' killed, replica "
                + replica.port() + (forced ? " promoted by CLUSTER FAILOVER FORCE" : " promoted by the cluster")
                + " after " + (System.currentTimeMillis() - start) + " ms";
    }

    @Override
    RedisServer downNode() {
        return down;
    }

    @Override
    String rejoin() {
        RedisServer node = down;
        RedisServer master;
        synchronized (this) {
            master = shardOf(node)[0];
        }
        node.start();
        awaitReplica(node, master);
        down = null;
        return node + " started again, a replica of " + master.port();
    }

    private void awaitReplica(RedisServer replica, RedisServer master) {
        awaitTrue(Duration.ofSeconds(60), replica + " to replicate " + master, () -> {
            String info = replica.command("INFO", "replication");
            return info.contains("master_link_status:up") && info.contains("master_port:" + master.port());
        });
    }

    /**
     * Moves the slot of a random lock, keys and all, to another master the way {@code redis-cli
     * --cluster reshard} does: IMPORTING/MIGRATING, a pause in which clients meet ASK and TRYAGAIN,
     * MIGRATE of the keys, then SETSLOT NODE on every master. Half the moves go in batches smaller
     * than a lock has: the lock's own hash alone first, then a key or two at a time for three more
     * batches, with pauses in which operations run against the split lock, then whatever is left.
     */
    @Override
    String migrateSlot(Random rnd) {
        boolean batched = rnd.nextBoolean();
        // A semaphore has a companion key too: its taken permits' timeout set.
        List<String> names = batched && rnd.nextInt(3) > 0
                ? Stream.concat(ChaosOperations.WITH_COMPANIONS.stream(), ChaosSemaphores.NAMES.stream())
                        .toList()
                : ChaosOperations.allNamesAndSemaphores();
        String name = names.get(rnd.nextInt(names.size()));
        String hash = ChaosRun.KEY_PREFIX + name;
        int slot = SlotHash.getSlot(hash);
        RedisServer source = ownerOf(slot);
        List<RedisServer> others = new ArrayList<>(dataNodes());
        others.remove(source);
        RedisServer target = others.get(rnd.nextInt(others.size()));
        String value = Integer.toString(slot);
        target.command("CLUSTER", "SETSLOT", value, "IMPORTING", ids.get(source));
        source.command("CLUSTER", "SETSLOT", value, "MIGRATING", ids.get(target));
        sleep(200 + rnd.nextInt(1300));
        int moved = 0;
        List<Integer> batches = new ArrayList<>();
        for (int round = 0; round < 100; round++) {
            String reply = source.command("CLUSTER", "GETKEYSINSLOT", value, "100");
            List<String> keys = reply.isBlank() ? List.of() : List.of(reply.split("\n"));
            if (keys.isEmpty()) {
                break;
            }
            List<String> batch = keys;
            // The first few batches small; then the rest at once, however many keys the slot holds.
            boolean small = batched && round < 4;
            if (small) {
                batch = round == 0 && keys.contains(hash)
                        ? List.of(hash)
                        : keys.subList(0, Math.min(keys.size(), 1 + rnd.nextInt(2)));
            }
            List<String> migrate = new ArrayList<>(
                    List.of("MIGRATE", target.host(), Integer.toString(target.port()), "", "0", "5000", "KEYS"));
            migrate.addAll(batch);
            source.command(migrate.toArray(String[]::new));
            moved += batch.size();
            batches.add(batch.size());
            if (small) {
                // Operations run against the split lock: some of its keys here, some there.
                sleep(300 + rnd.nextInt(1200));
            }
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
                + " keys" + (batched ? " in batches of " + batches : "");
    }

    private synchronized RedisServer[] shardOf(RedisServer node) {
        return shards.stream()
                .filter(shard -> shard[0] == node || shard[1] == node)
                .findFirst()
                .orElseThrow();
    }

    private RedisServer ownerOf(int slot) {
        String owner = ownerIn(dataNodes().get(0), slot);
        return ids.entrySet().stream()
                .filter(e -> e.getValue().equals(owner))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no owner for slot " + slot))
                .getKey();
    }

    /** @return the id of the node that {@code node} names as the master serving {@code slot}, or "" */
    private static String ownerIn(RedisServer node, int slot) {
        for (String line : node.command("CLUSTER", "NODES").split("\n")) {
            String[] fields = line.trim().split(" ");
            List<String> flags = fields.length < 3 ? List.of() : List.of(fields[2].split(","));
            if (!flags.contains("master") || flags.contains("fail")) {
                continue;
            }
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
        cluster.close();
    }
}
