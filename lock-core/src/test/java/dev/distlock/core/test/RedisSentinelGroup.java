package dev.distlock.core.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Sentinel group for tests: one master, one replica ({@code --replicaof}) and three sentinels
 * ({@code redis-server <conf> --sentinel}) with quorum 2, a 1 s down-after and a 3 s failover
 * timeout, so that a killed master is replaced within seconds. Close it to stop every process.
 */
public final class RedisSentinelGroup implements AutoCloseable {

    /** Name under which the sentinels monitor the master. */
    public static final String MASTER_ID = "mymaster";

    private final List<RedisServer> all = new ArrayList<>();
    private final List<RedisServer> sentinels = new ArrayList<>();
    private RedisServer master;
    private RedisServer replica;

    private RedisSentinelGroup() {}

    /**
     * Starts the group and waits until every sentinel sees the replica and the other sentinels.
     * @return the running group
     */
    public static RedisSentinelGroup start() {
        RedisSentinelGroup group = new RedisSentinelGroup();
        try {
            group.startAll();
            return group;
        } catch (RuntimeException ex) {
            group.close();
            throw ex;
        }
    }

    private void startAll() {
        master = track(RedisServers.start());
        replica = track(RedisServers.start("--replicaof", master.host(), Integer.toString(master.port())));
        awaitTrue(Duration.ofSeconds(15), "replica link up", () -> replica.command("INFO", "replication")
                .contains("master_link_status:up"));
        for (int i = 0; i < 3; i++) {
            sentinels.add(track(RedisServers.start(writeConfig().toString(), "--sentinel")));
        }
        awaitTrue(Duration.ofSeconds(20), "sentinels to discover the replica and each other", () -> sentinels.stream()
                .map(this::masterState)
                .allMatch(
                        state -> "1".equals(state.get("num-slaves")) && "2".equals(state.get("num-other-sentinels"))));
    }

    private Path writeConfig() {
        try {
            // Sentinels rewrite their config file, so each gets its own writable copy.
            Path dir = Files.createTempDirectory("distlock-sentinel-");
            Path config = dir.resolve("sentinel.conf");
            Files.writeString(
                    config,
                    String.join(
                            "\n",
                            "sentinel monitor " + MASTER_ID + " " + master.host() + " " + master.port() + " 2",
                            "sentinel down-after-milliseconds " + MASTER_ID + " 1000",
                            "sentinel failover-timeout " + MASTER_ID + " 3000",
                            "sentinel parallel-syncs " + MASTER_ID + " 1",
                            ""));
            return config;
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private RedisServer track(RedisServer server) {
        all.add(server);
        return server;
    }

    private Map<String, String> masterState(RedisServer sentinel) {
        String[] lines = sentinel.command("SENTINEL", "MASTER", MASTER_ID).split("\n");
        Map<String, String> state = new HashMap<>();
        for (int i = 0; i + 1 < lines.length; i += 2) {
            state.put(lines[i], lines[i + 1]);
        }
        return state;
    }

    /** @return the server started as master */
    public RedisServer master() {
        return master;
    }

    /** @return the server started as replica */
    public RedisServer replica() {
        return replica;
    }

    /** @return the first sentinel, e.g. to request a manual {@code SENTINEL FAILOVER} */
    public RedisServer sentinel() {
        return sentinels.get(0);
    }

    /**
     * Makes every sentinel monitor another server as the master, without the failover procedure
     * (which would also kill the clients of the old master): for tests of clients that stay
     * connected to a demoted master.
     * @param newMaster the server the sentinels name from now on
     */
    public void repointSentinels(RedisServer newMaster) {
        for (RedisServer sentinel : sentinels) {
            sentinel.command("SENTINEL", "REMOVE", MASTER_ID);
            sentinel.command(
                    "SENTINEL", "MONITOR", MASTER_ID, newMaster.host(), Integer.toString(newMaster.port()), "2");
            sentinel.command("SENTINEL", "SET", MASTER_ID, "down-after-milliseconds", "1000");
            sentinel.command("SENTINEL", "SET", MASTER_ID, "failover-timeout", "3000");
        }
    }

    /** @return the sentinels' {@code redis://host:port} */
    public String[] sentinelUris() {
        return sentinels.stream().map(RedisServer::uri).toArray(String[]::new);
    }

    /**
     * Returns the port of the master the first reachable sentinel names now.
     * @return the master's port
     */
    public int currentMasterPort() {
        for (RedisServer sentinel : sentinels) {
            try {
                String[] address = sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_ID)
                        .split("\n");
                return Integer.parseInt(address[1]);
            } catch (RuntimeException ex) {
                // try the next sentinel
            }
        }
        throw new IllegalStateException("No sentinel answered");
    }

    private static void awaitTrue(Duration timeout, String what, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Timed out after " + timeout + " waiting for " + what);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(50);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, ex);
            }
        }
    }

    @Override
    public void close() {
        for (int i = all.size() - 1; i >= 0; i--) {
            all.get(i).stop();
        }
    }
}
