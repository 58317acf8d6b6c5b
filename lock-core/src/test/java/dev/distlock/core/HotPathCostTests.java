package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What one uncontended lock+unlock costs on the blocking path, per kind, against committed
 * budgets: the commands the client sends (counted by Lettuce as they complete), the request bytes
 * Redis reads ({@code INFO stats total_net_input_bytes}) and the bytes allocated on the calling
 * thread ({@code ThreadMXBean.getThreadAllocatedBytes}), each averaged over many warm operations.
 * The raw floor (two hand-written scripts by {@code EVALSHA}, as in the benchmarks) is measured the
 * same way, so a failure says how far from it the kind has drifted. Counts, not times: these do
 * not move with the machine's load.
 *
 * <p>A budget that fails after a deliberate change is updated here, in the same commit, with the
 * benchmark numbers that justify it ({@code lock-benchmarks/results.md}).
 */
class HotPathCostTests {

    /** Operations measured per kind, after as many to warm up. */
    private static final int OPS = 1500;

    private static final long LEASE_SECONDS = 30;

    /**
     * Commands may exceed the budget by this much per operation: a command the client sends now and
     * then for its own sake (a reconnect's handshake) is not one per lock+unlock.
     */
    private static final double COMMANDS_TOLERANCE = 0.01;

    /** Request bytes may exceed the budget by this much (request ids grow a digit now and then). */
    private static final double BYTES_TOLERANCE = 1.03;

    /** Allocation may exceed the budget by this much: the JIT's escape analysis varies between runs. */
    private static final double ALLOCATION_TOLERANCE = 1.5;

    /**
     * Per kind: commands sent, request bytes and bytes allocated on the calling thread per
     * lock+unlock. Lock names are 16 characters; owners are threads. The read-write scripts declare
     * the keys they decide on (a slot migration must not split them unseen): the read side sends its
     * hold's timeout key with both calls and the waiting writers' zset with the acquire, the write
     * side that zset with the acquire; still one call each way (the read side allocates the declared
     * keys' list on the calling thread), and its release names which hold it ends ({@code first}: an
     * unlock does not say, so the one that expires first). Every kind's acquire sends its attempt id
     * and its release the lost attempts it may clean up after (a grant whose reply was lost is given back
     * on every kind), as the reentrant lock's always did. A blocking caller sends its first attempt and its release
     * from its own thread and handles their replies there, so the calling thread also allocates what
     * the connection's thread did before (the grant's bookkeeping): these budgets fell less than the
     * allocation of all threads (see {@code lock-benchmarks/results.md}).
     */
    private static final Map<String, Budget> BUDGETS = Map.of(
            "reentrant", new Budget(2, 360, 3550),
            "fenced", new Budget(2, 400, 3500),
            "fair", new Budget(2, 390, 3100),
            "read", new Budget(2, 670, 5300),
            "write", new Budget(2, 460, 3900));

    record Budget(double commands, double requestBytes, double allocatedBytes) {}

    /** What one lock+unlock cost, averaged. */
    record Cost(double commands, double requestBytes, double allocatedBytes) {
        @Override
        public String toString() {
            return String.format(
                    java.util.Locale.ROOT,
                    "%.2f commands, %.0f request bytes, %.0f bytes allocated on the calling thread",
                    commands,
                    requestBytes,
                    allocatedBytes);
        }
    }

    private static final AtomicLong commandsSent = new AtomicLong();
    private static ClientResources resources;
    private static RedisServer redis;
    private static Cost floor;

    @BeforeAll
    static void startRedisAndMeasureTheFloor() {
        redis = RedisServers.start();
        resources = DefaultClientResources.builder()
                .commandLatencyRecorder(new CommandLatencyRecorder() {
                    @Override
                    public void recordCommandLatency(
                            SocketAddress local,
                            SocketAddress remote,
                            ProtocolKeyword commandType,
                            long firstResponseLatency,
                            long completionLatency) {
                        commandsSent.incrementAndGet();
                    }

                    @Override
                    public boolean isEnabled() {
                        return true;
                    }
                })
                .build();
        floor = measureFloor();
    }

    @AfterAll
    static void stop() {
        resources.shutdown();
        redis.stop();
    }

    @ParameterizedTest
    @ValueSource(strings = {"reentrant", "fenced", "fair", "read", "write"})
    void shouldStayWithinTheBudgetPerLockAndUnlock(String kind) throws Exception {
        Cost cost;
        try (LockClient client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .clientResources(resources)
                .build())) {
            Function<String, RedisLock> locks =
                    switch (kind) {
                        case "fenced" -> client::getFencedLock;
                        case "fair" -> client::getFairLock;
                        case "read" -> name -> client.getReadWriteLock(name).readLock();
                        case "write" -> name -> client.getReadWriteLock(name).writeLock();
                        default -> client::getLock;
                    };
            cost = measure(kind, locks);
        }
        Budget budget = BUDGETS.get(kind);
        String measured = kind + ": " + cost + "; raw floor: " + floor;
        assertThat(cost.commands()).as(measured).isLessThanOrEqualTo(budget.commands() + COMMANDS_TOLERANCE);
        assertThat(cost.requestBytes()).as(measured).isLessThanOrEqualTo(budget.requestBytes() * BYTES_TOLERANCE);
        assertThat(cost.allocatedBytes())
                .as(measured)
                .isLessThanOrEqualTo(budget.allocatedBytes() * ALLOCATION_TOLERANCE);
    }

    /**
     * A multi lock of ten reentrant members on one server is taken by one script and released by
     * one: counted by the client as it sends commands and by Redis itself ({@code INFO
     * commandstats}, every {@code EVALSHA} and {@code EVAL}). Taken one member after another it
     * cost 29 scripts (ten acquisitions, nine lease restarts, ten releases).
     */
    @Test
    void shouldTakeAndReleaseTenMembersOnOneServerWithOneScriptEach() throws Exception {
        int members = 10;
        int ops = 200;
        try (LockClient client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .clientResources(resources)
                .build())) {
            String[] names = names("multi", 2 * ops);
            Function<String, MultiLock> multiOf = name -> MultiLock.of(IntStream.range(0, members)
                    .mapToObj(member -> client.getLock(name + "/" + member))
                    .toArray(RedisLock[]::new));
            for (int i = 0; i < ops; i++) {
                lockAndUnlock(multiOf.apply(names[i]));
            }
            long commandsBefore = commandsSent.get();
            long scriptsBefore = scriptsRun();
            for (int i = ops; i < 2 * ops; i++) {
                lockAndUnlock(multiOf.apply(names[i]));
            }
            double commands = (double) (commandsSent.get() - commandsBefore) / ops;
            // The INFO call that reads the count is not a script.
            double scripts = (double) (scriptsRun() - scriptsBefore) / ops;
            assertThat(scripts)
                    .as("scripts Redis ran per lock+unlock of %d members", members)
                    .isEqualTo(2.0);
            assertThat(commands)
                    .as("commands sent per lock+unlock of %d members", members)
                    .isLessThanOrEqualTo(2 + COMMANDS_TOLERANCE);
        }
    }

    /** @return the scripts Redis ran so far ({@code EVALSHA} and {@code EVAL} calls) */
    private static long scriptsRun() {
        return redis.command("INFO", "commandstats")
                .lines()
                .filter(line -> line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:"))
                .mapToLong(line -> {
                    int calls = line.indexOf("calls=") + "calls=".length();
                    return Long.parseLong(line.substring(calls, line.indexOf(',', calls)));
                })
                .sum();
    }

    private static Cost measure(String kind, Function<String, RedisLock> locks) throws Exception {
        String[] names = names(kind, 2 * OPS);
        for (int i = 0; i < OPS; i++) {
            lockAndUnlock(locks.apply(names[i]));
        }
        return measured(() -> {
            for (int i = OPS; i < 2 * OPS; i++) {
                lockAndUnlock(locks.apply(names[i]));
            }
        });
    }

    private static void lockAndUnlock(RedisLock lock) throws InterruptedException {
        lock.lock(LEASE_SECONDS, TimeUnit.SECONDS);
        lock.unlock();
    }

    /** The raw floor of the benchmarks: {@code SET NX PX} and a compare-and-delete, by {@code EVALSHA}. */
    private static Cost measureFloor() {
        RedisClient client = RedisClient.create(resources, RedisURI.create(redis.uri()));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> sync = connection.sync();
            String acquire = sync.scriptLoad("return redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])");
            String release = sync.scriptLoad(
                    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0");
            String token = "raw:" + Thread.currentThread().getId();
            String lease = Long.toString(TimeUnit.SECONDS.toMillis(LEASE_SECONDS));
            String[] names = names("floor", 2 * OPS);
            Runnable[] rounds = new Runnable[2];
            for (int round = 0; round < 2; round++) {
                int from = round * OPS;
                rounds[round] = () -> {
                    for (int i = from; i < from + OPS; i++) {
                        String[] key = {names[i]};
                        sync.evalsha(acquire, ScriptOutputType.STATUS, key, token, lease);
                        sync.evalsha(release, ScriptOutputType.INTEGER, key, token);
                    }
                };
            }
            rounds[0].run();
            try {
                return measured(rounds[1]::run);
            } catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    interface Ops {
        void run() throws Exception;
    }

    private static Cost measured(Ops ops) throws Exception {
        long bytesBefore = inputBytes();
        long commandsBefore = commandsSent.get();
        long allocatedBefore = allocatedByThisThread();
        ops.run();
        long allocated = allocatedByThisThread() - allocatedBefore;
        long commands = commandsSent.get() - commandsBefore;
        long bytes = inputBytes() - bytesBefore;
        return new Cost((double) commands / OPS, (double) bytes / OPS, (double) allocated / OPS);
    }

    /**
     * The bytes this thread allocated so far: {@code com.sun.management.ThreadMXBean}, called
     * reflectively because this module does not read {@code jdk.management}.
     */
    private static long allocatedByThisThread() throws Exception {
        Method allocated =
                Class.forName("com.sun.management.ThreadMXBean").getMethod("getThreadAllocatedBytes", long.class);
        return (long) allocated.invoke(
                ManagementFactory.getThreadMXBean(), Thread.currentThread().getId());
    }

    /** Redis's count of bytes read; the INFO command asking for it adds 27 bytes, under 0.02 per operation. */
    private static long inputBytes() {
        return redis.command("INFO", "stats")
                .lines()
                .filter(line -> line.startsWith("total_net_input_bytes:"))
                .mapToLong(line ->
                        Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
                .findFirst()
                .orElseThrow();
    }

    /** Names of one length, so that every operation sends the same bytes. */
    private static String[] names(String kind, int count) {
        String[] names = new String[count];
        String prefix = (kind + "----------").substring(0, 9) + ":";
        for (int i = 0; i < count; i++) {
            names[i] = prefix + String.format("%06d", i);
        }
        return names;
    }
}
