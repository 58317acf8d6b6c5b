package dev.distlock.core.chaos;

import dev.distlock.core.test.RedisServer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Injects one fault at a time, chosen with a seeded random, and heals it within a bounded time
 * (at most a few seconds, a failover or migration as long as it takes to complete). Between faults
 * it waits 1-4 s, and now and then 15-25 s, so that the checker sees quiet stretches in which
 * waiters must make progress. {@link #healAll()} undoes anything still in force.
 */
final class Nemesis {

    private static final Logger log = LoggerFactory.getLogger(Nemesis.class);

    private final ChaosTopology topology;
    private final List<WorkerProcess> workers;
    private final Random rnd;
    private final List<Fault> faults = Collections.synchronizedList(new ArrayList<>());
    private final java.util.concurrent.atomic.AtomicLong stormKills = new java.util.concurrent.atomic.AtomicLong();
    private volatile long deadline = Long.MAX_VALUE;

    Nemesis(ChaosTopology topology, List<WorkerProcess> workers, long seed) {
        this.topology = topology;
        this.workers = workers;
        this.rnd = new Random(seed ^ 0x5DEECE66DL);
    }

    List<Fault> faults() {
        return List.copyOf(faults);
    }

    /**
     * Watches which node Sentinel names as master, every 200 ms, and records every change as a
     * data-loss fault starting a second before the last poll that still saw the old master: Sentinel
     * may fail over on its own after any stall (a pause, a client pause, a restart), and whatever the
     * old master acknowledged but had not replicated is lost from the promotion on.
     * @return a handle that stops the watch
     */
    AutoCloseable watchFailovers() {
        if (!(topology instanceof ChaosTopology.Sentinel sentinel)) {
            return () -> {};
        }
        Thread watch = new Thread(
                () -> {
                    int master = sentinel.masterPort();
                    long seenAt = System.currentTimeMillis();
                    while (!Thread.currentThread().isInterrupted()) {
                        try {
                            Thread.sleep(200);
                            int now = sentinel.masterPort();
                            if (now != master) {
                                Fault fault = new Fault(
                                        "FAILOVER_SEEN",
                                        master + "->" + now,
                                        seenAt - 1000,
                                        System.currentTimeMillis(),
                                        true,
                                        FaultType.FAILOVER.graceMillis());
                                faults.add(fault);
                                log.info("[chaos] fault {}", fault);
                                master = now;
                            }
                            seenAt = System.currentTimeMillis();
                        } catch (InterruptedException ex) {
                            return;
                        } catch (RuntimeException sentinelsBusy) {
                            // keep the last time the old master was seen: the window only grows
                        }
                    }
                },
                "chaos-failover-watch");
        watch.setDaemon(true);
        watch.start();
        return () -> {
            watch.interrupt();
            watch.join(5000);
        };
    }

    /** Injects faults until {@code deadline} (wall-clock millis). */
    void run(long deadline) throws InterruptedException {
        this.deadline = deadline;
        List<FaultType> menu = new ArrayList<>(topology.faults());
        // -Dchaos.faults=A,B narrows the menu, to reproduce a finding with fewer moving parts.
        String only = System.getProperty("chaos.faults", "");
        if (!only.isBlank()) {
            menu.retainAll(java.util.Arrays.stream(only.split(","))
                    .map(String::trim)
                    .map(FaultType::valueOf)
                    .toList());
        }
        if (menu.isEmpty()) {
            throw new IllegalArgumentException("'chaos.faults' leaves no fault for " + topology.name() + ": " + only);
        }
        while (true) {
            long quiet = rnd.nextInt(10) < 3 ? 15_000 + rnd.nextInt(10_000) : 1000 + rnd.nextInt(3000);
            Thread.sleep(Math.max(0, Math.min(quiet, deadline - System.currentTimeMillis())));
            if (System.currentTimeMillis() >= deadline) {
                return;
            }
            FaultType type = menu.get(rnd.nextInt(menu.size()));
            inject(type);
        }
    }

    private void inject(FaultType type) throws InterruptedException {
        long start = System.currentTimeMillis();
        int masterBefore = topology instanceof ChaosTopology.Sentinel s ? s.masterPort() : 0;
        String target;
        boolean dataLoss = false;
        try {
            switch (type) {
                case REDIS_PAUSE -> {
                    RedisServer node = node();
                    target = node.toString();
                    node.pause();
                    Thread.sleep(300 + rnd.nextInt(3000));
                    node.resume();
                    dataLoss = topology.stallsMayLoseData();
                }
                case JVM_PAUSE -> {
                    WorkerProcess worker = workers.get(rnd.nextInt(workers.size()));
                    target = worker.jvm();
                    worker.signal("STOP");
                    try {
                        Thread.sleep(500 + rnd.nextInt(5500));
                    } finally {
                        worker.signal("CONT");
                    }
                }
                case KILL_COMMAND, KILL_PUBSUB -> target = killConnections(type == FaultType.KILL_PUBSUB);
                case KILL_STORM -> target = killStorm(Math.min(8000 + rnd.nextInt(22_000), stormRoom()));
                case CLIENT_PAUSE -> {
                    RedisServer node = node();
                    long millis = 300 + rnd.nextInt(2700);
                    String mode = rnd.nextBoolean() ? "WRITE" : "ALL";
                    target = node + " " + mode + " " + millis + " ms";
                    node.command("CLIENT", "PAUSE", Long.toString(millis), mode);
                    Thread.sleep(millis);
                    dataLoss = topology.stallsMayLoseData();
                }
                case ACL_SCRIPTS -> target = revoke("-evalsha", "-eval", "+evalsha", "+eval");
                case ACL_CHANNELS -> target = revoke("resetchannels", null, "allchannels", null);
                case RESTART -> {
                    RedisServer node = node();
                    target = node.toString();
                    dataLoss = true;
                    node.restart();
                    topology.restarted(node);
                }
                case OUTAGE -> {
                    RedisServer node = node();
                    long millis = 1000 + rnd.nextInt(2000);
                    target = node + " down " + millis + " ms";
                    dataLoss = true;
                    node.stop();
                    try {
                        Thread.sleep(millis);
                    } finally {
                        node.start();
                    }
                    topology.restarted(node);
                }
                case FAILOVER -> {
                    dataLoss = true;
                    target = topology.failover(rnd);
                }
                case SLOT_MIGRATION -> target = topology.migrateSlot(rnd);
                default -> throw new IllegalStateException("unknown fault " + type);
            }
        } catch (RuntimeException ex) {
            // A fault that could not be applied or healed cleanly: record it as the worst kind.
            target = "failed: " + ex;
            dataLoss = true;
            healAll();
        }
        if (topology instanceof ChaosTopology.Sentinel s) {
            try {
                dataLoss |= s.masterPort() != masterBefore;
            } catch (RuntimeException ex) {
                dataLoss = true;
            }
        }
        Fault fault = new Fault(type.name(), target, start, System.currentTimeMillis(), dataLoss, type.graceMillis());
        faults.add(fault);
        log.info("[chaos] fault {}", fault);
        if (topology.downNode() != null) {
            keepDown();
        }
    }

    /**
     * Leaves the master a failover killed down for 15-25 s (no other fault meanwhile), while waiter
     * lines and fair queues go on waiting and handing the locks on through the promoted replica, then
     * starts it again as that replica's replica. The fault's window ended when the replica served:
     * from then on releases must wake waiters promptly.
     */
    private void keepDown() throws InterruptedException {
        long millis = 15_000 + rnd.nextInt(10_000);
        Thread.sleep(Math.max(0, Math.min(millis, deadline - System.currentTimeMillis())));
        long start = System.currentTimeMillis();
        String target;
        try {
            target = topology.rejoin();
        } catch (RuntimeException ex) {
            target = "failed: " + ex;
            healAll();
        }
        Fault fault = new Fault(
                FaultType.REJOIN.name(),
                target,
                start,
                System.currentTimeMillis(),
                false,
                FaultType.REJOIN.graceMillis());
        faults.add(fault);
        log.info("[chaos] fault {}", fault);
    }

    private RedisServer node() {
        List<RedisServer> nodes = topology.dataNodes();
        return nodes.get(rnd.nextInt(nodes.size()));
    }

    private String revoke(String first, String second, String restoreFirst, String restoreSecond)
            throws InterruptedException {
        long millis = 500 + rnd.nextInt(3500);
        try {
            for (RedisServer node : topology.dataNodes()) {
                acl(node, first, second);
            }
            Thread.sleep(millis);
        } finally {
            for (RedisServer node : topology.dataNodes()) {
                acl(node, restoreFirst, restoreSecond);
            }
        }
        return "default user " + first + (second == null ? "" : " " + second) + " for " + millis + " ms";
    }

    private static void acl(RedisServer node, String rule, String second) {
        if (second == null) {
            node.command("ACL", "SETUSER", "default", rule);
        } else {
            node.command("ACL", "SETUSER", "default", rule, second);
        }
    }

    /** Kills one client JVM's command or pub/sub connections on one node, found by name in CLIENT LIST. */
    private String killConnections(boolean pubSub) {
        RedisServer node = node();
        String jvm = workers.get(rnd.nextInt(workers.size())).jvm();
        List<String> killed = new ArrayList<>();
        for (String line : node.command("CLIENT", "LIST").split("\n")) {
            if (!line.contains(" name=" + ChaosRun.CLIENT_NAME_PREFIX + jvm + " ")) {
                continue;
            }
            if (isPubSub(line) == pubSub) {
                String id = field(line, "id");
                node.command("CLIENT", "KILL", "ID", id);
                killed.add(id);
            }
        }
        return jvm + " on " + node + " ids " + killed;
    }

    /**
     * Kills every client JVM's command connections on a random data node, again and again every
     * 30-180 ms for {@code millis}: the storm that makes acquisitions lose their replies mid-flight.
     * @return what was hit, with the number of connections killed
     */
    private String killStorm(long millis) throws InterruptedException {
        long until = System.currentTimeMillis() + millis;
        int rounds = 0;
        int killed = 0;
        while (System.currentTimeMillis() < until) {
            RedisServer node = node();
            try {
                for (String line : node.command("CLIENT", "LIST").split("\n")) {
                    if (line.contains(" name=" + ChaosRun.CLIENT_NAME_PREFIX + "w") && !isPubSub(line)) {
                        node.command("CLIENT", "KILL", "ID", field(line, "id"));
                        killed++;
                    }
                }
            } catch (RuntimeException nodeBusy) {
                // a node that does not answer this round is hit the next
            }
            rounds++;
            Thread.sleep(30 + rnd.nextInt(151));
        }
        stormKills.addAndGet(killed);
        return "command connections of every client JVM, " + rounds + " rounds every 30-180 ms over " + millis + " ms: "
                + killed + " connections killed";
    }

    /** @return how long a storm may last: until the deadline, at least a few seconds */
    private long stormRoom() {
        return Math.max(3000, deadline - System.currentTimeMillis());
    }

    /** @return connections killed by storms so far */
    long stormKills() {
        return stormKills.get();
    }

    private static boolean isPubSub(String line) {
        return !"0".equals(field(line, "sub"))
                || !"0".equals(field(line, "psub"))
                || line.contains(" ssub=") && !"0".equals(field(line, "ssub"))
                || field(line, "cmd").contains("subscribe");
    }

    private static String field(String line, String name) {
        for (String part : line.split(" ")) {
            if (part.startsWith(name + "=")) {
                return part.substring(name.length() + 1);
            }
        }
        return "";
    }

    /** Resumes every node and client JVM and restores every permission; safe to call at any time. */
    void healAll() {
        for (WorkerProcess worker : workers) {
            worker.signal("CONT");
        }
        for (RedisServer node : topology.allNodes()) {
            try {
                node.resume();
                if (node.isRunning()) {
                    node.command("CLIENT", "UNPAUSE");
                    acl(node, "+evalsha", "+eval");
                    acl(node, "allchannels", null);
                }
            } catch (RuntimeException ex) {
                log.warn("[chaos] could not heal {}: {}", node, ex.toString());
            }
        }
    }
}
