package dev.distlock.core.chaos;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisSemaphore;
import dev.distlock.core.chaos.Event.Kind;
import dev.distlock.core.chaos.Event.Phase;
import dev.distlock.core.chaos.Event.Type;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The semaphore workload of a client JVM: permits of {@link #NAMES} taken with an explicit lease,
 * a short one that lapses while held, or the watchdog; by {@code tryAcquire} with a random wait or by
 * {@code acquire} without one, blocking or asynchronous; held briefly inside the semaphore's section
 * of the {@link ExclusionRegister} (which counts the holders inside against the permits), then
 * released by id, blocking or asynchronous. Each acquisition is its own owner: permits are not tied
 * to threads. A holder reads its permit's lease back from Redis ({@link LeaseProbe}) as it enters
 * and every {@link ChaosOperations#PROBE_EVERY_MILLIS}.
 *
 * <p>History: an {@code ACQ} of kind {@code SEMAPHORE} per call (wait {@code -1} for {@code acquire}),
 * its permit id as the detail of the {@code OK}; a {@code REL} per release. A release refused with
 * {@link IllegalArgumentException} (the permit is not taken, or had outlived its lease) is the
 * semaphore's "not held" answer, which {@link ChaosChecker} judges like a lock's.
 *
 * <p>With {@code broken} set (only by the harness's own tests) a caller enters the section without a
 * permit but records that it had one, so the checker has something to find.
 */
final class ChaosSemaphores {

    /** Semaphore names; {@link #permits} gives each one's permits. */
    static final List<String> NAMES = List.of("se-0", "se-1");

    private static final TimeUnit MS = TimeUnit.MILLISECONDS;

    private final LockClient client;
    private final HistoryWriter history;
    private final ExclusionRegister register;
    private final LeaseProbe probe;
    private final boolean broken;

    ChaosSemaphores(
            LockClient client, HistoryWriter history, ExclusionRegister register, LeaseProbe probe, boolean broken) {
        this.client = client;
        this.history = history;
        this.register = register;
        this.probe = probe;
        this.broken = broken;
    }

    /** @return the permits of semaphore {@code name}: 2 for {@code se-0}, 3 for {@code se-1} */
    static int permits(String name) {
        return 2 + NAMES.indexOf(name);
    }

    /**
     * Sets every semaphore's permits if none are set: once before the run, and again before each
     * acquisition, where it changes nothing unless a fault that loses data removed the semaphore.
     */
    void setPermits() {
        for (String name : NAMES) {
            setPermits(client.getSemaphore(name));
        }
    }

    private static void setPermits(RedisSemaphore semaphore) {
        try {
            semaphore.trySetPermits(permits(semaphore.getName()));
        } catch (RuntimeException ignored) {
            // a fault: the next call tries again
        }
    }

    /** Takes a permit of a random semaphore, holds it a while inside the section and gives it back. */
    void run(Random rnd) throws InterruptedException {
        String name = ChaosOperations.pick(rnd, NAMES);
        RedisSemaphore semaphore = client.getSemaphore(name);
        if (broken) {
            pretend(rnd, name);
            return;
        }
        setPermits(semaphore);
        long owner = RedisLock.newOwnerId();
        int mode = rnd.nextInt(10);
        boolean async = mode % 2 == 1;
        long wait = mode < 7 ? ChaosOperations.wait(rnd) : -1;
        long lease = ChaosOperations.lease(rnd);
        int retries = rnd.nextInt(10) < 7 ? 1 + rnd.nextInt(3) : 0;
        long op;
        String permit;
        while (true) {
            op = history.nextOp();
            record(op, Type.ACQ, Phase.INV, name, owner, wait, lease, "-");
            try {
                permit = take(semaphore, wait, lease, async);
                if (permit == null) {
                    record(op, Type.ACQ, Phase.FAIL, name, owner, wait, lease, "-");
                } else {
                    record(op, Type.ACQ, Phase.OK, name, owner, wait, lease, permit);
                }
                break;
            } catch (InterruptedException ex) {
                record(op, Type.ACQ, Phase.ERR, name, owner, wait, lease, ex.toString());
                throw ex;
            } catch (RuntimeException ex) {
                record(
                        op,
                        Type.ACQ,
                        Phase.ERR,
                        name,
                        owner,
                        wait,
                        lease,
                        unwrap(ex).toString());
                if (retries-- <= 0) {
                    // not drawn from the seeded random: the sequence of operations does not depend on errors
                    Thread.sleep(50 + ThreadLocalRandom.current().nextInt(150));
                    return;
                }
            }
        }
        if (permit == null) {
            return;
        }
        String opId = history.opId(op);
        String ownerName = history.owner(owner);
        register.enterPermit(name, opId, ownerName, permits(name));
        try {
            long end = System.currentTimeMillis() + holdMillis(rnd);
            while (true) {
                probe(op, name, owner, permit);
                long left = end - System.currentTimeMillis();
                if (left <= 0) {
                    break;
                }
                Thread.sleep(Math.min(left, ChaosOperations.PROBE_EVERY_MILLIS));
            }
        } finally {
            register.exitPermit(name, opId, ownerName, permits(name));
            record(op, Type.REL, Phase.INV, name, owner, 0, 0, "-");
            try {
                if (rnd.nextBoolean()) {
                    semaphore.releaseAsync(permit).toCompletableFuture().join();
                } else {
                    semaphore.release(permit);
                }
                record(op, Type.REL, Phase.OK, name, owner, 0, 0, "-");
            } catch (RuntimeException ex) {
                record(op, Type.REL, Phase.ERR, name, owner, 0, 0, unwrap(ex).toString());
            }
        }
    }

    /**
     * Reads the permit's lease left in Redis ({@link LeaseProbe}), recorded at the moment it was sent,
     * so that the checker knows how long a permit granted after a long wait, or renewed by the
     * watchdog, is valid.
     */
    private void probe(long op, String name, long owner, String permit) {
        long sent = System.currentTimeMillis();
        String detail;
        try {
            long left = probe.permitLeaseLeft("{" + ChaosRun.KEY_PREFIX + name + "}:timeout", permit);
            detail = left == LeaseProbe.GONE ? "gone@" + System.currentTimeMillis() : "held " + left;
        } catch (RuntimeException ex) {
            detail = "failed " + ex;
        }
        history.recordAt(sent, op, -1, Type.PROBE, Phase.OK, Kind.SEMAPHORE, List.of(name), owner, 0, 0, 0, detail);
    }

    private static String take(RedisSemaphore semaphore, long wait, long lease, boolean async)
            throws InterruptedException {
        if (wait < 0) {
            return async
                    ? semaphore.acquireAsync(lease, MS).toCompletableFuture().join()
                    : semaphore.acquire(lease, MS);
        }
        return async
                ? semaphore
                        .tryAcquireAsync(wait, lease, MS)
                        .toCompletableFuture()
                        .join()
                : semaphore.tryAcquire(wait, lease, MS);
    }

    /** Mostly brief, sometimes past a short lease or a watchdog round. */
    private static long holdMillis(Random rnd) {
        int r = rnd.nextInt(100);
        return r < 70 ? rnd.nextInt(150) : r < 95 ? 150 + rnd.nextInt(650) : 800 + rnd.nextInt(1700);
    }

    /** Enters the section without a permit, recording that it had one. */
    private void pretend(Random rnd, String name) throws InterruptedException {
        long op = history.nextOp();
        long owner = RedisLock.newOwnerId();
        record(op, Type.ACQ, Phase.INV, name, owner, 0, 10_000, "-");
        record(op, Type.ACQ, Phase.OK, name, owner, 0, 10_000, "broken");
        register.enterPermit(name, history.opId(op), history.owner(owner), permits(name));
        try {
            Thread.sleep(50 + holdMillis(rnd));
        } finally {
            register.exitPermit(name, history.opId(op), history.owner(owner), permits(name));
            record(op, Type.REL, Phase.INV, name, owner, 0, 0, "-");
            record(op, Type.REL, Phase.OK, name, owner, 0, 0, "-");
        }
    }

    private void record(
            long op, Type type, Phase phase, String name, long owner, long wait, long lease, String detail) {
        history.record(op, -1, type, phase, Kind.SEMAPHORE, List.of(name), owner, wait, lease, 0, detail);
    }

    private static Throwable unwrap(RuntimeException ex) {
        return ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex;
    }
}
