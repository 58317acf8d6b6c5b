package dev.distlock.core.chaos;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisSemaphore;
import dev.distlock.core.chaos.ChaosChecker.Params;
import dev.distlock.core.chaos.ChaosChecker.Violation;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Checks after the last fault healed and the clients stopped working:
 * <ul>
 * <li>THREAD_LEAK: a client JVM has threads (outside bounded Lettuce/Netty pools) it did not have
 *     before the run, 15 s after its last operation;</li>
 * <li>SUBSCRIPTION_LEAK: a Distlock channel is still subscribed on some node when no one waits,
 *     after the client's channel linger (10 s) and a margin;</li>
 * <li>STUCK: a lock cannot be taken by a fresh client within the longest lease plus the watchdog
 *     timeout and margins, although every operation on it has ended (by the README, a hold whose
 *     acquire or release failed expires with its lease; nothing is renewed for an owner that let go);</li>
 * <li>LEFTOVER_PERMIT: at the same moment, a semaphore ({@link ChaosSemaphores}) has not got all its
 *     permits back, as a fresh client counts them (giving back those whose lease ended), or has more
 *     than it was set to;</li>
 * <li>LEFTOVER_KEY: after every client closed and the longest lease, unlock latch and fair-queue
 *     deadline passed, a key of the run is still in Redis on some node. Fencing-token counters
 *     ({@code redisson_lock_token:*}) and semaphores' permit counts are meant to persist and are not
 *     counted (a semaphore's taken permits are).</li>
 * </ul>
 */
final class FinalChecks {

    private final ChaosTopology topology;
    private final Params params;

    FinalChecks(ChaosTopology topology, Params params) {
        this.topology = topology;
        this.params = params;
    }

    /** @return the longest explicit lease of any operation: a waiter line's */
    private long longestLease() {
        return Math.max(params.maxLeaseMillis(), ChaosOperations.LINE_LEASE_MILLIS);
    }

    void awaitIdle(List<WorkerProcess> workers, List<Violation> violations) throws InterruptedException {
        for (WorkerProcess worker : workers) {
            String leaked = worker.expect("IDLE", 180);
            if (!"-".equals(leaked)) {
                violations.add(
                        new Violation("THREAD_LEAK", "client JVM " + worker.jvm() + " has new threads " + leaked));
            }
        }
    }

    void subscriptions(List<Violation> violations) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        Set<String> channels = channels();
        while (!channels.isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(500);
            channels = channels();
        }
        if (!channels.isEmpty()) {
            violations.add(new Violation(
                    "SUBSCRIPTION_LEAK",
                    "channels still subscribed 30 s after the last operation," + " with no waiter: " + channels));
        }
    }

    private Set<String> channels() {
        Set<String> channels = new LinkedHashSet<>();
        for (RedisServer node : topology.dataNodes()) {
            collect(channels, node, node.command("PUBSUB", "CHANNELS"));
            if (RedisServers.majorVersion() >= 7) {
                collect(channels, node, node.command("PUBSUB", "SHARDCHANNELS"));
            }
        }
        return channels;
    }

    private static void collect(Set<String> into, RedisServer node, String reply) {
        for (String channel : reply.split("\n")) {
            if (channel.contains(ChaosRun.KEY_PREFIX)) {
                into.add(channel + " on " + node.port());
            }
        }
    }

    void probeLocks(List<Violation> violations) throws InterruptedException {
        long wait = Math.max(longestLease(), params.watchdogMillis())
                + params.watchdogMillis()
                + Math.max(params.fairWaitMillis(), ChaosOperations.LINE_FAIR_WAIT_MILLIS)
                + 2 * params.commandTimeoutMillis()
                + 5000;
        LockClientOptions options = topology.connect(LockClientOptions.builder()
                        .keyPrefix(ChaosRun.KEY_PREFIX)
                        .commandTimeout(Duration.ofMillis(params.commandTimeoutMillis())))
                .build();
        try (LockClient probe = LockClient.create(options)) {
            for (String name : ChaosOperations.allNames()) {
                RedisLock lock = name.startsWith("fe-")
                        ? probe.getFencedLock(name)
                        : name.startsWith("fa-") || name.startsWith("lf-")
                                ? probe.getFairLock(name)
                                : name.startsWith("rw-")
                                        ? probe.getReadWriteLock(name).writeLock()
                                        : probe.getLock(name);
                String outcome;
                try {
                    if (lock.tryLock(wait, 1000, TimeUnit.MILLISECONDS)) {
                        lock.unlock();
                        continue;
                    }
                    outcome = "not acquired";
                } catch (RuntimeException ex) {
                    outcome = ex.toString();
                }
                String state;
                try {
                    state = probe.inspect(name).toString();
                } catch (RuntimeException ex) {
                    state = "(inspect failed: " + ex + ")";
                }
                violations.add(new Violation(
                        "STUCK",
                        "lock '" + name + "' " + outcome + " within " + wait
                                + " ms after every operation ended and every fault healed; state " + state));
            }
        }
    }

    void closeClients(List<WorkerProcess> workers) throws InterruptedException {
        workers.forEach(worker -> worker.send("CLOSE"));
        for (WorkerProcess worker : workers) {
            worker.expect("CLOSED", 60);
            worker.waitForExit(30);
        }
    }

    void leftoverKeys(List<Violation> violations) throws InterruptedException {
        // Longest of: explicit lease, watchdog lease, unlock latch (3 command timeouts), fair deadlines.
        long settle = Math.max(
                        Math.max(longestLease(), params.watchdogMillis()),
                        Math.max(3 * params.commandTimeoutMillis(), ChaosOperations.LINE_FAIR_WAIT_MILLIS))
                + 3000;
        Thread.sleep(settle);
        leftoverPermits(violations);
        Set<String> permitCounts = new LinkedHashSet<>();
        ChaosSemaphores.NAMES.forEach(name -> permitCounts.add(ChaosRun.KEY_PREFIX + name));
        List<String> leftovers = new ArrayList<>();
        for (RedisServer node : topology.dataNodes()) {
            for (String key : node.command("KEYS", "*").split("\n")) {
                if (key.isBlank() || key.startsWith("redisson_lock_token:") || permitCounts.contains(key)) {
                    continue;
                }
                leftovers.add(key + " (" + node.command("TYPE", key) + ", pttl " + node.command("PTTL", key)
                        + " ms, on " + node.port() + ")");
            }
        }
        if (!leftovers.isEmpty()) {
            violations.add(new Violation(
                    "LEFTOVER_KEY",
                    leftovers.size() + " keys left " + settle + " ms after every client closed: " + leftovers));
        }
    }

    /**
     * LEFTOVER_PERMIT: once every lease ended, each semaphore must have exactly the permits it was set
     * to. A semaphore that a fault which loses data removed (and no caller set again) had nothing taken.
     */
    private void leftoverPermits(List<Violation> violations) throws InterruptedException {
        // A generous timeout and a few tries: a slow answer on a loaded machine is not a leftover permit.
        LockClientOptions options = topology.connect(LockClientOptions.builder()
                        .keyPrefix(ChaosRun.KEY_PREFIX)
                        .commandTimeout(Duration.ofMillis(5 * params.commandTimeoutMillis())))
                .build();
        try (LockClient probe = LockClient.create(options)) {
            for (String name : ChaosSemaphores.NAMES) {
                int permits = ChaosSemaphores.permits(name);
                String outcome = null;
                for (int attempt = 0; attempt < 3; attempt++) {
                    try {
                        RedisSemaphore semaphore = probe.getSemaphore(name);
                        // Set when a fault that loses data removed it: then nothing is left taken.
                        int available = semaphore.trySetPermits(permits) ? permits : semaphore.availablePermits();
                        outcome = available == permits ? null : available + " permits available";
                        break;
                    } catch (RuntimeException ex) {
                        outcome = "permits not readable: " + ex;
                        Thread.sleep(1000);
                    }
                }
                if (outcome == null) {
                    continue;
                }
                violations.add(new Violation(
                        "LEFTOVER_PERMIT",
                        "semaphore '" + name + "' (" + permits + " permits) has " + outcome
                                + " after every client closed and every lease ended"));
            }
        }
    }
}
