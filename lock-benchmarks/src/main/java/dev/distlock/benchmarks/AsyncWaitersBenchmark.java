package dev.distlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jspecify.annotations.Nullable;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.IterationParams;

/**
 * Scenario W: {@value #WAITERS} waiters over {@value #LOCKS} locks ({@value #WAITERS_PER_LOCK} per
 * lock), each handed the lock in turn. One invocation is one round, timed by JMH (single shot).
 *
 * <p>Async libraries: one thread starts all {@value #WAITERS} {@code tryLock} calls at once; each
 * waiter, once granted, releases with the async unlock, which lets the next one in. The blocking
 * library ({@code distlock}) does the same number of grants with the threads the machine can afford,
 * {@value #BLOCKING_THREADS_PER_LOCK} per lock, each taking its lock
 * {@value #BLOCKING_GRANTS_PER_THREAD} times.
 *
 * <p>Besides the round time it records the grants that completed, the threads the round added to the
 * JVM (peak live threads during the round minus live threads before it, from {@link ThreadMXBean},
 * so short-lived threads count too) and the hand-off latency, from the holder's unlock call to the
 * next holder's grant (the async stage's callback, or the blocking call's return).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(1)
public class AsyncWaitersBenchmark {

    static final int LOCKS = 100;
    static final int WAITERS_PER_LOCK = 100;
    static final int WAITERS = LOCKS * WAITERS_PER_LOCK;
    static final int BLOCKING_THREADS_PER_LOCK = 4;
    static final int BLOCKING_GRANTS_PER_THREAD = WAITERS_PER_LOCK / BLOCKING_THREADS_PER_LOCK;
    // A waiter's wait is the whole round's; below JMH's per-iteration timeout (60 s) in the runner.
    private static final long WAIT_MILLIS = 45_000;
    private static final long ROUND_LIMIT_MILLIS = 50_000;

    @Param({"distlock-async", "redisson-async", "distlock"})
    public String lib;

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private RedisAdmin admin;
    private @Nullable AsyncLockLibrary async;
    private @Nullable LockLibrary blocking;
    private MeasurementWindow window;
    private int round;
    private AtomicLongArray firstHandOffs = new AtomicLongArray(LOCKS);

    @Setup(Level.Trial)
    public void open() {
        int port = BenchmarkServer.port();
        admin = new RedisAdmin(BenchmarkServer.HOST, port);
        admin.command("FLUSHALL");
        if (AsyncLockLibrary.isAsync(lib)) {
            async = AsyncLockLibrary.open(lib, BenchmarkServer.HOST, port);
        } else {
            blocking = LockLibrary.open(lib, BenchmarkServer.HOST, port);
        }
        window = new MeasurementWindow(admin, lib, 1, 1);
    }

    @Setup(Level.Iteration)
    public void iterationStarted(IterationParams params) {
        window.iterationStarted(params);
    }

    @TearDown(Level.Iteration)
    public void iterationEnded() {
        window.iterationEnded();
    }

    @TearDown(Level.Trial)
    public void close() {
        window.write();
        if (async != null) {
            async.close();
        }
        if (blocking != null) {
            blocking.close();
        }
        admin.close();
    }

    @Benchmark
    public int handOffRound() throws InterruptedException {
        // Fresh names each round, so a waiter a failed round left behind never meets this round's.
        String prefix = "bench:waiters:" + round++ + ":";
        AtomicLongArray releasedAt = new AtomicLongArray(LOCKS);
        firstHandOffs = new AtomicLongArray(LOCKS);
        AtomicInteger granted = new AtomicInteger();
        int before = threads.getThreadCount();
        threads.resetPeakThreadCount();
        long started = System.nanoTime();
        boolean finished = async != null
                ? asyncRound(async, prefix, releasedAt, granted)
                : blockingRound(blocking, prefix, releasedAt, granted);
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        int added = threads.getPeakThreadCount() - before;
        window.first("threads.added.first", added);
        window.maximum("threads.added", added);
        window.total("rounds", 1);
        window.total("waiters", WAITERS);
        window.total("granted", granted.get());
        window.total("unfinished.rounds", finished ? 0 : 1);
        window.maximum("round.ms.max", tookMillis);
        window.maximum("handoff.first.median.us", medianFirstHandOffMicros());
        return granted.get();
    }

    private boolean asyncRound(
            AsyncLockLibrary library, String prefix, AtomicLongArray releasedAt, AtomicInteger granted)
            throws InterruptedException {
        CountDownLatch done = new CountDownLatch(WAITERS);
        for (int i = 0; i < WAITERS; i++) {
            int lock = i % LOCKS;
            String key = prefix + lock;
            long owner = library.newOwner();
            library.tryLock(key, WAIT_MILLIS, owner).whenComplete((acquired, error) -> {
                if (error != null || !acquired) {
                    countFailure(error);
                    done.countDown();
                    return;
                }
                recordGrant(lock, releasedAt);
                granted.incrementAndGet();
                releasedAt.set(lock, System.nanoTime());
                library.unlock(key, owner).whenComplete((ignored, unlockError) -> {
                    if (unlockError != null) {
                        countFailure(unlockError);
                    } else {
                        window.ops.increment();
                    }
                    done.countDown();
                });
            });
        }
        return done.await(ROUND_LIMIT_MILLIS, TimeUnit.MILLISECONDS);
    }

    private boolean blockingRound(LockLibrary library, String prefix, AtomicLongArray releasedAt, AtomicInteger granted)
            throws InterruptedException {
        Thread[] workers = new Thread[LOCKS * BLOCKING_THREADS_PER_LOCK];
        for (int i = 0; i < workers.length; i++) {
            int lock = i % LOCKS;
            String key = prefix + lock;
            workers[i] = new Thread(
                    () -> {
                        for (int n = 0; n < BLOCKING_GRANTS_PER_THREAD; n++) {
                            try {
                                if (!library.lock(key, WAIT_MILLIS)) {
                                    countFailure(null);
                                    continue;
                                }
                                recordGrant(lock, releasedAt);
                                granted.incrementAndGet();
                                releasedAt.set(lock, System.nanoTime());
                                library.unlock(key);
                                window.ops.increment();
                            } catch (InterruptedException ex) {
                                Thread.currentThread().interrupt();
                                return;
                            } catch (RuntimeException ex) {
                                countFailure(ex);
                            }
                        }
                    },
                    "bench-waiter-" + i);
            workers[i].start();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ROUND_LIMIT_MILLIS);
        boolean finished = true;
        for (Thread worker : workers) {
            worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            finished &= !worker.isAlive();
        }
        return finished;
    }

    private void recordGrant(int lock, AtomicLongArray releasedAt) {
        long now = System.nanoTime();
        long previous = releasedAt.get(lock);
        window.acquired(lock, previous == 0 ? -1 : now - previous);
        if (previous != 0) {
            firstHandOffs.compareAndSet(lock, 0, now - previous);
        }
    }

    /**
     * The median over the locks of each lock's first hand-off: the one most exposed to the start
     * of a round, when every waiter's first attempt is still queued, and so the part of the tail a
     * round's start explains.
     */
    private long medianFirstHandOffMicros() {
        long[] first = new long[LOCKS];
        for (int i = 0; i < LOCKS; i++) {
            first[i] = firstHandOffs.get(i);
        }
        java.util.Arrays.sort(first);
        return first[LOCKS / 2] / 1000;
    }

    private void countFailure(@Nullable Throwable error) {
        if (error == null) {
            window.timeouts.increment();
        } else {
            window.total("errors", 1);
        }
    }
}
