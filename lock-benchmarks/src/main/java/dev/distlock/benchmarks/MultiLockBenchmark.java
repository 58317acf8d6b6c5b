package dev.distlock.benchmarks;

import dev.distlock.core.LockClient;
import dev.distlock.core.MultiLock;
import dev.distlock.core.RedisLock;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Scenario M: an uncontended lock+unlock of a multi lock of ten members on one server, fresh keys
 * each time, one thread, lease given; beside a single Distlock lock (the latency a multi lock is
 * measured against) and Redisson's {@code RedissonMultiLock} over the same ten names. Run by hand
 * (see {@code results.md}); each iteration prints the scripts, Redis calls (those run inside
 * scripts included, {@code INFO commandstats}) and Redis CPU time ({@code INFO cpu}) per operation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class MultiLockBenchmark {

    private static final int MEMBERS = 10;
    private static final long WAIT_MILLIS = 10_000;

    @Param({"distlock-single", "distlock-multi", "redisson-multi"})
    public String lib;

    private RedisAdmin admin;
    private LockClient distlock;
    private RedissonClient redisson;
    private String prefix;
    private long next;
    private RedisStats before;
    private long opsInIteration;

    @Setup(Level.Trial)
    public void open() {
        int port = BenchmarkServer.port();
        admin = new RedisAdmin(BenchmarkServer.HOST, port);
        admin.command("FLUSHALL");
        String uri = "redis://" + BenchmarkServer.HOST + ":" + port;
        if (lib.startsWith("redisson")) {
            Config config = new Config();
            config.useSingleServer().setAddress(uri);
            redisson = Redisson.create(config);
        } else {
            distlock = LockClient.create(uri);
        }
        prefix = "bench:multi:" + Long.toHexString(System.nanoTime()) + ":";
    }

    @Setup(Level.Iteration)
    public void iterationStarted() {
        before = admin.stats();
        opsInIteration = 0;
    }

    @TearDown(Level.Iteration)
    public void iterationEnded() {
        if (opsInIteration > 0) {
            RedisStats used = admin.stats().minus(before);
            double ops = opsInIteration;
            System.out.printf(
                    java.util.Locale.ROOT,
                    "%n[%s] scripts/op: %.2f, Redis calls/op: %.2f, Redis CPU us/op: %.1f%n",
                    lib,
                    used.scriptCalls() / ops,
                    used.totalCalls() / ops,
                    used.cpuMicros() / ops);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        if (distlock != null) {
            distlock.close();
        }
        if (redisson != null) {
            redisson.shutdown();
        }
        admin.close();
    }

    @Benchmark
    public void lockUnlock() throws InterruptedException {
        String name = prefix + next++;
        switch (lib) {
            case "distlock-single" -> {
                RedisLock lock = distlock.getLock(name);
                take(lock.tryLock(WAIT_MILLIS, LockLibrary.LEASE_MILLIS, TimeUnit.MILLISECONDS), name);
                lock.unlock();
            }
            case "distlock-multi" -> {
                MultiLock lock = MultiLock.of(IntStream.range(0, MEMBERS)
                        .mapToObj(i -> distlock.getLock(name + ":" + i))
                        .toArray(RedisLock[]::new));
                take(lock.tryLock(WAIT_MILLIS, LockLibrary.LEASE_MILLIS, TimeUnit.MILLISECONDS), name);
                lock.unlock();
            }
            default -> {
                RLock lock = redisson.getMultiLock(IntStream.range(0, MEMBERS)
                        .mapToObj(i -> redisson.getLock(name + ":" + i))
                        .toArray(RLock[]::new));
                take(lock.tryLock(WAIT_MILLIS, LockLibrary.LEASE_MILLIS, TimeUnit.MILLISECONDS), name);
                lock.unlock();
            }
        }
        opsInIteration++;
    }

    private void take(boolean acquired, String name) {
        if (!acquired) {
            throw new IllegalStateException(lib + " did not take uncontended lock '" + name + "'");
        }
    }
}
