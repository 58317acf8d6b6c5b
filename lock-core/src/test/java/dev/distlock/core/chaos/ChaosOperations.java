package dev.distlock.core.chaos;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockClient;
import dev.distlock.core.MultiLock;
import dev.distlock.core.RedisLock;
import dev.distlock.core.chaos.Event.Kind;
import dev.distlock.core.chaos.Event.Phase;
import dev.distlock.core.chaos.Event.Type;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The random operations of a client JVM, each recorded in its history: nested reentrant locks,
 * fenced locks writing to the {@link FencedLedger}, fair locks, read and write locks, multi locks
 * over 2-3 names, holds taken with an explicit owner id and released from another thread, groups of
 * asynchronous calls of one explicit owner ({@link ChaosOwnerGroups}), asynchronous calls cancelled
 * at random points ({@link ChaosCancels}), and permits of semaphores ({@link ChaosSemaphores}).
 * Leases are the watchdog, explicit, or short enough to lapse while held; waits range from a single
 * try to 25 s; most callers retry at once when a call fails with an exception, as a caller handling
 * {@code LockException} would. A few names per kind and several threads per client keep contention
 * and waiter lines real.
 *
 * <p>Every hold enters the {@link ExclusionRegister} once its acquisition returned and leaves it
 * before its release is called, and reads its lease with the {@link LeaseProbe} as it begins and then
 * every {@link #PROBE_EVERY_MILLIS}.
 *
 * <p>With {@code broken} set (only by the harness's own tests) reentrant and fenced operations skip
 * the lock but record that they held it, and semaphore callers enter without a permit, so the
 * checker has something to find.
 */
final class ChaosOperations {

    static final List<String> REENTRANT = List.of("re-0", "re-1", "re-2");
    static final List<String> FENCED = List.of("fe-0", "fe-1");
    static final List<String> FAIR = List.of("fa-0", "fa-1");
    static final List<String> READ_WRITE = List.of("rw-0", "rw-1");
    /** Locks that callers wait for in line: a reentrant lock and a fair lock, held briefly, waited for long. */
    static final List<String> LINES = List.of("ln-0", "lf-0");
    /** Locks with keys besides their hash (fencing counter, fair queue, read hold timeouts). */
    static final List<String> WITH_COMPANIONS = List.of("fe-0", "fe-1", "fa-0", "fa-1", "rw-0", "rw-1", "lf-0");

    /**
     * The explicit lease of a waiter-line hold: far longer than the hold, so that a waiter that
     * misses the release's wake-up parks for most of it (its park is bounded by the lease it saw).
     */
    static final long LINE_LEASE_MILLIS = 15_000;

    /**
     * The fair-lock wait timeout of the waiter lines' client: a queued fair waiter that hears no
     * release tries again only every third of it, and a queue entry whose owner went silent blocks
     * the queue for up to all of it.
     */
    static final long LINE_FAIR_WAIT_MILLIS = 30_000;

    static final long PROBE_EVERY_MILLIS = 400;

    private static final TimeUnit MS = TimeUnit.MILLISECONDS;
    private static final long NOT_ACQUIRED = -1;

    private final LockClient client;
    private final HistoryWriter history;
    private final FencedLedger ledger;
    private final ExclusionRegister register;
    private final LeaseProbe probe;
    private final boolean broken;
    private final ChaosCancels cancels;
    private final ChaosOwnerGroups groups;
    private final ChaosSemaphores semaphores;

    ChaosOperations(
            LockClient client,
            HistoryWriter history,
            FencedLedger ledger,
            ExclusionRegister register,
            LeaseProbe probe,
            boolean broken) {
        this.client = client;
        this.history = history;
        this.ledger = ledger;
        this.register = register;
        this.probe = probe;
        this.broken = broken;
        this.cancels = new ChaosCancels(client, history, ChaosRun.PARAMS.commandTimeoutMillis());
        this.groups = new ChaosOwnerGroups(client, history, register);
        this.semaphores = new ChaosSemaphores(client, history, register, probe, broken);
    }

    static List<String> allNames() {
        return Stream.of(REENTRANT, FENCED, FAIR, READ_WRITE, LINES)
                .flatMap(List::stream)
                .toList();
    }

    /** @return every lock name and every semaphore name: what a fault may aim at */
    static List<String> allNamesAndSemaphores() {
        return Stream.concat(allNames().stream(), ChaosSemaphores.NAMES.stream())
                .toList();
    }

    /** Connects and loads the scripts before the run, outside the recorded history. */
    void warmUp() throws InterruptedException {
        List<RedisLock> locks = List.of(
                client.getLock(REENTRANT.get(0)),
                client.getFencedLock(FENCED.get(0)),
                client.getFairLock(FAIR.get(0)),
                client.getReadWriteLock(READ_WRITE.get(0)).readLock(),
                client.getReadWriteLock(READ_WRITE.get(1)).writeLock());
        for (RedisLock lock : locks) {
            try {
                if (lock.tryLock(5000, 1000, MS)) {
                    lock.unlock();
                }
            } catch (RuntimeException ignored) {
                // a slow start is not a finding; the recorded run is
            }
        }
        semaphores.setPermits();
    }

    void run(long seed, long deadline, ExecutorService handoff) {
        Random rnd = new Random(seed);
        while (System.currentTimeMillis() < deadline) {
            int pick = rnd.nextInt(100);
            try {
                if (pick < 18) {
                    nested(rnd);
                } else if (pick < 28) {
                    fenced(rnd);
                } else if (pick < 36) {
                    simple(rnd, Kind.FAIR, client.getFairLock(pick(rnd, FAIR)));
                } else if (pick < 44) {
                    simple(
                            rnd,
                            Kind.READ,
                            client.getReadWriteLock(pick(rnd, READ_WRITE)).readLock());
                } else if (pick < 52) {
                    simple(
                            rnd,
                            Kind.WRITE,
                            client.getReadWriteLock(pick(rnd, READ_WRITE)).writeLock());
                } else if (pick < 60) {
                    multi(rnd);
                } else if (pick < 65) {
                    cancels.run(rnd);
                } else if (pick < 71) {
                    handoff(rnd, handoff);
                } else if (pick < 77) {
                    groups.run(rnd, handoff);
                } else if (pick < 85) {
                    semaphores.run(rnd);
                } else {
                    quickRetry(rnd);
                }
                Thread.sleep(rnd.nextInt(30));
            } catch (InterruptedException ex) {
                return;
            }
        }
    }

    /**
     * A hot caller: single tries on the watchdog, retried at once after an error, held briefly, one
     * after another. Hot callers make the dense traffic in which a connection kill catches replies in
     * flight.
     */
    void runHot(long seed, long deadline) {
        Random rnd = new Random(seed);
        while (System.currentTimeMillis() < deadline) {
            try {
                quickRetry(rnd);
                Thread.sleep(2 + rnd.nextInt(10));
            } catch (InterruptedException ex) {
                return;
            }
        }
    }

    /**
     * A semaphore caller: takes permits of the semaphores ({@link ChaosSemaphores}) one after
     * another, so that each semaphore has more callers than permits nearly all the time.
     */
    void runSemaphores(long seed, long deadline) {
        Random rnd = new Random(seed);
        while (System.currentTimeMillis() < deadline) {
            try {
                semaphores.run(rnd);
                Thread.sleep(rnd.nextInt(30));
            } catch (InterruptedException ex) {
                return;
            }
        }
    }

    /**
     * A caller in a waiter line: waits 5-30 s for {@link #LINES} lock (reentrant or fair), holds it
     * 0.2-1.5 s with a {@link #LINE_LEASE_MILLIS} lease and releases it. With several such callers
     * per client JVM, every client has callers waiting in line on each lock (and in the fair queue)
     * nearly all the time, so a failover, a migration or a lost subscription meets them waiting, and
     * each release must hand the lock on promptly (the checker's LATENCY rule).
     */
    void runLine(long seed, long deadline) {
        Random rnd = new Random(seed);
        while (System.currentTimeMillis() < deadline) {
            try {
                boolean fair = rnd.nextBoolean();
                String name = LINES.get(fair ? 1 : 0);
                RedisLock lock = fair ? client.getFairLock(name) : client.getLock(name);
                Kind kind = fair ? Kind.FAIR : Kind.REENTRANT;
                long wait = 5000 + rnd.nextInt(25_000);
                Section held = acquire(-1, kind, List.of(name), lock, wait, LINE_LEASE_MILLIS, null, retries(rnd));
                if (held != null) {
                    try {
                        enter(held);
                        long end = System.currentTimeMillis() + 200 + rnd.nextInt(1300);
                        while (System.currentTimeMillis() < end) {
                            probe(held);
                            Thread.sleep(Math.max(1, Math.min(PROBE_EVERY_MILLIS, end - System.currentTimeMillis())));
                        }
                    } finally {
                        exit(held);
                        release(held.op(), kind, List.of(name), lock, null);
                    }
                }
                Thread.sleep(rnd.nextInt(200));
            } catch (InterruptedException ex) {
                return;
            }
        }
    }

    /** A hold inside its critical section, as the register and the probe see it. */
    private record Section(long op, Kind kind, List<String> names, long ownerId, long token) {}

    private void nested(Random rnd) throws InterruptedException {
        String name = pick(rnd, REENTRANT);
        RedisLock lock = client.getLock(name);
        if (broken) {
            pretend(rnd, history.nextOp(), Kind.REENTRANT, name, 0);
            return;
        }
        Section held = acquire(-1, Kind.REENTRANT, List.of(name), lock, wait(rnd), lease(rnd), null, retries(rnd));
        if (held == null) {
            return;
        }
        try {
            enter(held);
            hold(rnd, held);
            if (rnd.nextInt(10) < 6) {
                reenter(rnd, held, lock, rnd.nextInt(3) == 0 ? 2 : 1);
            }
            hold(rnd, held);
        } finally {
            exit(held);
            release(held.op(), Kind.REENTRANT, List.of(name), lock, null);
        }
    }

    /** Re-enters a held lock {@code depth} levels deep, each level held a while and released. */
    private void reenter(Random rnd, Section outer, RedisLock lock, int depth) throws InterruptedException {
        Section inner = acquire(outer.op(), outer.kind(), outer.names(), lock, 0, lease(rnd), null, 0);
        if (inner == null) {
            return;
        }
        try {
            hold(rnd, outer);
            if (depth > 1) {
                reenter(rnd, outer, lock, depth - 1);
                hold(rnd, outer);
            }
        } finally {
            release(inner.op(), outer.kind(), outer.names(), lock, null);
        }
    }

    /**
     * The shape of the dropped-connection finding, and the bulk of the traffic a connection kill can
     * catch in flight: a single try on the watchdog, retried at once after an error, held briefly.
     */
    private void quickRetry(Random rnd) throws InterruptedException {
        String name = pick(rnd, REENTRANT);
        RedisLock lock = client.getLock(name);
        Section held = acquire(-1, Kind.REENTRANT, List.of(name), lock, 0, RedisLock.WATCHDOG_LEASE, null, 5);
        if (held == null) {
            return;
        }
        try {
            enter(held);
            probe(held);
            Thread.sleep(rnd.nextInt(40));
            probe(held);
        } finally {
            exit(held);
            release(held.op(), Kind.REENTRANT, List.of(name), lock, null);
        }
    }

    private void fenced(Random rnd) throws InterruptedException {
        String name = pick(rnd, FENCED);
        FencedLock lock = client.getFencedLock(name);
        if (broken) {
            // Skips the lock and borrows the latest token, as a client that ignores "not acquired" would.
            pretend(rnd, history.nextOp(), Kind.FENCED, name, lock.getToken());
            return;
        }
        Section held = acquire(-1, Kind.FENCED, List.of(name), lock, wait(rnd), lease(rnd), null, retries(rnd));
        if (held == null) {
            return;
        }
        try {
            enter(held);
            section(rnd, held);
        } finally {
            exit(held);
            release(held.op(), Kind.FENCED, List.of(name), lock, null);
        }
    }

    private void simple(Random rnd, Kind kind, RedisLock lock) throws InterruptedException {
        List<String> names = List.of(lock.getName());
        Section held = acquire(-1, kind, names, lock, wait(rnd), lease(rnd), null, retries(rnd));
        if (held == null) {
            return;
        }
        try {
            enter(held);
            hold(rnd, held);
        } finally {
            exit(held);
            release(held.op(), kind, names, lock, null);
        }
    }

    private void multi(Random rnd) throws InterruptedException {
        List<String> names = new ArrayList<>(REENTRANT);
        Collections.shuffle(names, rnd);
        names = List.copyOf(names.subList(0, 2 + rnd.nextInt(2)));
        MultiLock lock = MultiLock.of(names.stream().map(client::getLock).toArray(RedisLock[]::new));
        Long owner = rnd.nextBoolean() ? RedisLock.newOwnerId() : null;
        Section held = acquire(-1, Kind.MULTI, names, lock, wait(rnd), lease(rnd), owner, retries(rnd));
        if (held == null) {
            return;
        }
        try {
            enter(held);
            hold(rnd, held);
        } finally {
            exit(held);
            release(held.op(), Kind.MULTI, names, lock, owner);
        }
    }

    private void handoff(Random rnd, ExecutorService pool) throws InterruptedException {
        boolean fenced = rnd.nextInt(10) < 4;
        String name = pick(rnd, fenced ? FENCED : REENTRANT);
        RedisLock lock = fenced ? client.getFencedLock(name) : client.getLock(name);
        Kind kind = fenced ? Kind.FENCED : Kind.REENTRANT;
        long owner = RedisLock.newOwnerId();
        Section held = acquire(-1, kind, List.of(name), lock, wait(rnd), lease(rnd), owner, retries(rnd));
        if (held == null) {
            return;
        }
        enter(held);
        long holdSeed = rnd.nextLong();
        // Released by another thread, through the explicit owner id.
        pool.execute(() -> {
            Random local = new Random(holdSeed);
            try {
                if (fenced) {
                    section(local, held);
                } else {
                    hold(local, held);
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            } finally {
                exit(held);
                release(held.op(), kind, List.of(name), lock, owner);
            }
        });
    }

    private void section(Random rnd, Section held) throws InterruptedException {
        String name = held.names().get(0);
        String owner = history.owner(held.ownerId());
        ledger.write(name, held.token(), owner, "E");
        hold(rnd, held);
        ledger.write(name, held.token(), owner, "X");
    }

    private void pretend(Random rnd, long op, Kind kind, String name, long token) throws InterruptedException {
        long self = Thread.currentThread().getId();
        history.record(op, -1, Type.ACQ, Phase.INV, kind, List.of(name), self, 0, 10_000, 0, "-");
        history.record(op, -1, Type.ACQ, Phase.OK, kind, List.of(name), self, 0, 10_000, token, "broken");
        Section held = new Section(op, kind, List.of(name), self, token);
        enter(held);
        try {
            if (kind == Kind.FENCED) {
                section(rnd, held);
            } else {
                hold(rnd, held);
            }
        } finally {
            exit(held);
            history.record(op, -1, Type.REL, Phase.INV, kind, List.of(name), self, 0, 10_000, 0, "-");
            history.record(op, -1, Type.REL, Phase.OK, kind, List.of(name), self, 0, 10_000, 0, "-");
        }
    }

    /**
     * Acquires, and when the call fails with an exception calls again at once, up to {@code retries}
     * times, each call its own operation with the same owner.
     * @return the hold, or null when not acquired
     */
    private Section acquire(
            long parent,
            Kind kind,
            List<String> names,
            RedisLock lock,
            long wait,
            long lease,
            Long explicitOwner,
            int retries)
            throws InterruptedException {
        long owner =
                explicitOwner != null ? explicitOwner : Thread.currentThread().getId();
        int left = retries;
        while (true) {
            long op = history.nextOp();
            history.record(op, parent, Type.ACQ, Phase.INV, kind, names, owner, wait, lease, 0, "-");
            try {
                long token;
                if (lock instanceof FencedLock fencedLock) {
                    OptionalLong result = explicitOwner != null
                            ? fencedLock.tryLockAndGetToken(wait, lease, MS, owner)
                            : fencedLock.tryLockAndGetToken(wait, lease, MS);
                    token = result.orElse(NOT_ACQUIRED);
                } else {
                    boolean ok = explicitOwner != null
                            ? lock.tryLock(wait, lease, MS, owner)
                            : lock.tryLock(wait, lease, MS);
                    token = ok ? 0 : NOT_ACQUIRED;
                }
                history.record(
                        op,
                        parent,
                        Type.ACQ,
                        token == NOT_ACQUIRED ? Phase.FAIL : Phase.OK,
                        kind,
                        names,
                        owner,
                        wait,
                        lease,
                        Math.max(0, token),
                        "-");
                return token == NOT_ACQUIRED ? null : new Section(op, kind, names, owner, Math.max(0, token));
            } catch (InterruptedException ex) {
                history.record(op, parent, Type.ACQ, Phase.ERR, kind, names, owner, wait, lease, 0, ex.toString());
                throw ex;
            } catch (RuntimeException ex) {
                history.record(op, parent, Type.ACQ, Phase.ERR, kind, names, owner, wait, lease, 0, ex.toString());
                if (left-- > 0) {
                    continue;
                }
                // A call that keeps failing (no permission, read-only replica) must not spin the thread;
                // not drawn from the seeded random, so the sequence of operations does not depend on errors.
                Thread.sleep(50 + ThreadLocalRandom.current().nextInt(150));
                return null;
            }
        }
    }

    private void release(long op, Kind kind, List<String> names, RedisLock lock, Long explicitOwner) {
        long owner =
                explicitOwner != null ? explicitOwner : Thread.currentThread().getId();
        history.record(op, -1, Type.REL, Phase.INV, kind, names, owner, 0, 0, 0, "-");
        try {
            if (explicitOwner != null) {
                lock.unlock(owner);
            } else {
                lock.unlock();
            }
            history.record(op, -1, Type.REL, Phase.OK, kind, names, owner, 0, 0, 0, "-");
        } catch (RuntimeException ex) {
            history.record(op, -1, Type.REL, Phase.ERR, kind, names, owner, 0, 0, 0, ex.toString());
        }
    }

    private void enter(Section held) {
        for (String name : held.names()) {
            register.enter(
                    name,
                    history.opId(held.op()),
                    history.owner(held.ownerId()),
                    held.kind() == Kind.READ,
                    held.token());
        }
    }

    private void exit(Section held) {
        for (String name : held.names()) {
            register.exit(
                    name,
                    history.opId(held.op()),
                    history.owner(held.ownerId()),
                    held.kind() == Kind.READ,
                    held.token());
        }
    }

    /** Holds for a random while, reading the hold's lease as it begins and every {@link #PROBE_EVERY_MILLIS}. */
    private void hold(Random rnd, Section held) throws InterruptedException {
        int r = rnd.nextInt(100);
        long millis = r < 70 ? rnd.nextInt(150) : r < 95 ? 150 + rnd.nextInt(650) : 800 + rnd.nextInt(1700);
        long end = System.currentTimeMillis() + millis;
        while (true) {
            probe(held);
            long left = end - System.currentTimeMillis();
            if (left <= 0) {
                return;
            }
            Thread.sleep(Math.min(left, PROBE_EVERY_MILLIS));
        }
    }

    /** Reads the lease of a hold (each member's, for a multi lock) in Redis, with the time it was sent. */
    private void probe(Section held) {
        if (broken) {
            return;
        }
        String field = client.getId() + ":" + held.ownerId() + (held.kind() == Kind.WRITE ? ":write" : "");
        for (String name : held.names()) {
            long sent = System.currentTimeMillis();
            String detail;
            try {
                long left = held.kind() == Kind.READ
                        ? probe.readLeaseLeft(ChaosRun.KEY_PREFIX + name, field)
                        : probe.leaseLeft(ChaosRun.KEY_PREFIX + name, field);
                detail = left == LeaseProbe.GONE ? "gone@" + System.currentTimeMillis() : "held " + left;
            } catch (RuntimeException ex) {
                detail = "failed " + ex;
            }
            history.recordAt(
                    sent,
                    held.op(),
                    -1,
                    Type.PROBE,
                    Phase.OK,
                    held.kind(),
                    List.of(name),
                    held.ownerId(),
                    0,
                    0,
                    0,
                    detail);
        }
    }

    static String pick(Random rnd, List<String> names) {
        return names.get(rnd.nextInt(names.size()));
    }

    static long wait(Random rnd) {
        int r = rnd.nextInt(100);
        return r < 30
                ? 0
                : r < 65 ? 50 + rnd.nextInt(1450) : r < 90 ? 2000 + rnd.nextInt(4000) : 10_000 + rnd.nextInt(15_000);
    }

    /** @return the watchdog, an explicit lease, or one short enough to lapse while held */
    static long lease(Random rnd) {
        int r = rnd.nextInt(10);
        return r < 4 ? RedisLock.WATCHDOG_LEASE : r < 8 ? 800 + rnd.nextInt(3200) : 100 + rnd.nextInt(400);
    }

    /** @return how often a caller retries at once after an exception: most do */
    private static int retries(Random rnd) {
        return rnd.nextInt(10) < 7 ? 1 + rnd.nextInt(3) : 0;
    }
}
