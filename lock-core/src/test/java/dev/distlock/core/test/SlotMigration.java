package dev.distlock.core.test;

import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A live slot migration driven by hand, as {@code redis-cli --cluster reshard} does it: the target
 * is marked {@code IMPORTING}, the source {@code MIGRATING}, keys are moved with {@code MIGRATE} in
 * batches, and {@link #finish()} gives the slot to the target on every node. Between two batches
 * the keys of one lock may be split across the two nodes, which is what the tests look at.
 */
public final class SlotMigration {

    private final RedisCluster cluster;
    private final int slot;
    private final RedisServer source;
    private final RedisServer target;
    private final String targetId;

    private SlotMigration(RedisCluster cluster, int slot, RedisServer source, RedisServer target, String targetId) {
        this.cluster = cluster;
        this.slot = slot;
        this.source = source;
        this.target = target;
        this.targetId = targetId;
    }

    /**
     * Starts moving the slot of a key to another master: {@code SETSLOT IMPORTING} on the target,
     * then {@code SETSLOT MIGRATING} on the source. No key moves yet.
     * @param cluster the cluster
     * @param key a key of the slot
     * @param to the target master
     * @return the migration under way
     */
    public static SlotMigration begin(RedisCluster cluster, String key, RedisServer to) {
        RedisServer from = cluster.masterOf(key);
        if (from == to) {
            throw new IllegalArgumentException("'to' already serves the slot of '" + key + "'");
        }
        int slot = SlotHash.getSlot(key);
        String sourceId = from.command("CLUSTER", "MYID");
        String targetId = to.command("CLUSTER", "MYID");
        expectOk(to.command("CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", sourceId));
        expectOk(from.command("CLUSTER", "SETSLOT", Integer.toString(slot), "MIGRATING", targetId));
        return new SlotMigration(cluster, slot, from, to, targetId);
    }

    /** @return the keys of the slot still on the source */
    public List<String> keysOnSource() {
        String reply = source.command("CLUSTER", "GETKEYSINSLOT", Integer.toString(slot), "1000");
        List<String> keys = new ArrayList<>();
        for (String line : reply.split("\n")) {
            if (!line.isBlank()) {
                keys.add(line.trim());
            }
        }
        return keys;
    }

    /**
     * Moves some keys to the target in one {@code MIGRATE}, as one batch of a reshard.
     * @param keys the keys; each must be on the source
     */
    public void migrate(String... keys) {
        List<String> args = new ArrayList<>(
                List.of("MIGRATE", target.host(), Integer.toString(target.port()), "", "0", "5000", "KEYS"));
        args.addAll(Arrays.asList(keys));
        expectOk(source.command(args.toArray(String[]::new)));
    }

    /** Moves every key left on the source, then gives the slot to the target on every master. */
    public void finish() {
        List<String> left = keysOnSource();
        if (!left.isEmpty()) {
            migrate(left.toArray(String[]::new));
        }
        // The target first, so that no node is left pointing at an owner that does not know it owns it.
        expectOk(target.command("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", targetId));
        target.command("CLUSTER", "BUMPEPOCH");
        expectOk(source.command("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", targetId));
        cluster.masters().stream()
                .filter(node -> node != source && node != target)
                .forEach(node -> node.command("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", targetId));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!cluster.masters().stream().allMatch(node -> servedByTarget(node))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Nodes do not agree that slot " + slot + " moved to " + target);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(50);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while finishing the move of slot " + slot, ex);
            }
        }
    }

    private boolean servedByTarget(RedisServer node) {
        for (String line : node.command("CLUSTER", "NODES").split("\n")) {
            String[] fields = line.trim().split(" ");
            if (!fields[0].equals(targetId)) {
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
                    return true;
                }
            }
        }
        return false;
    }

    private static void expectOk(String reply) {
        if (!"OK".equals(reply) && !"NOKEY".equals(reply)) {
            throw new IllegalStateException("a slot migration command was refused: " + reply);
        }
    }
}
