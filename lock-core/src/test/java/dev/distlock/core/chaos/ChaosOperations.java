package dev.distlock.core.chaos;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockClient;
import dev.distlock.core.MultiLock;
import dev.distlock.core.RedisLock;
import dev.distlock.core.chaos.Event.Kind;
import dev.distlock.core.chaos.Event.Phase;
import dev.distlock.core.chaos.Event.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The random operations of a client JVM, each recorded in its history: nested reentrant locks,
 * fenced locks writing to the {@link FencedLedger}, fair locks, read and write locks, multi locks
 * over 2-3 names, holds taken with an explicit owner id and released from another thread, and
 * asynchronous calls cancelled at random points ({@link ChaosCancels}).
 * Leases are the watchdog or explicit; waits range from a single try to 25 s. A few names per kind
 * keep contention real.
 *
 * <p>With {@code broken} set (only by the harness's own tests) reentrant and fenced operations skip
 * the lock but record that they held it, so the checker has something to find.
 */
final class ChaosOperations {

    static final List<String> REENTRANT = List.of("re-0", "re-1", "re-2");
    static final List<String> FENCED = List.of("fe-0", "fe-1");
    static final List<String> FAIR = List.of("fa-0", "fa-1");
    static final List<String> READ_WRITE = List.of("rw-0", "rw-1");

    private static final TimeUnit MS = TimeUnit.MILLISECONDS;
    private static final long NOT_ACQUIRED = -1;

    private final LockClient client;
    private final HistoryWriter history;
    private final FencedLedger ledger;
    private final boolean broken;
    private final ChaosCancels cancels;

    ChaosOperations(LockClient client, HistoryWriter history, FencedLedger ledger, boolean broken) {
        this.client = client;
        this.history = history;
        this.ledger = ledger;
        this.broken = broken;
        this.cancels = new ChaosCancels(client, history, ChaosRun.PARAMS.commandTimeoutMillis());
    }

    static List<String> allNames() {
        return Stream.of(REENTRANT, FENCED, FAIR, READ_WRITE)
                .flatMap(List::stream)
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
    }

    void run(long seed, long deadline, ExecutorService handoff) {
        Random rnd = new Random(seed);
        while (System.currentTimeMillis() < deadline) {
            int pick = rnd.nextInt(100);
            try {
                if (pick < 20) {
                    nested(rnd);
                } else if (pick < 35) {
                    fenced(rnd);
                } else if (pick < 47) {
                    simple(rnd, Kind.FAIR, client.getFairLock(pick(rnd, FAIR)));
                } else if (pick < 57) {
                    simple(
                            rnd,
                            Kind.READ,
                            client.getReadWriteLock(pick(rnd, READ_WRITE)).readLock());
                } else if (pick < 67) {
                    simple(
                            rnd,
                            Kind.WRITE,
                            client.getReadWriteLock(pick(rnd, READ_WRITE)).writeLock());
                } else if (pick < 80) {
                    multi(rnd);
                } else if (pick < 88) {
                    cancels.run(rnd);
                } else {
                    handoff(rnd, handoff);
                }
                Thread.sleep(rnd.nextInt(30));
            } catch (InterruptedException ex) {
                return;
            }
        }
    }

    private void nested(Random rnd) throws InterruptedException {
        String name = pick(rnd, REENTRANT);
        RedisLock lock = client.getLock(name);
        long op = history.nextOp();
        if (broken) {
            pretend(rnd, op, Kind.REENTRANT, name, 0);
            return;
        }
        if (acquire(op, -1, Kind.REENTRANT, List.of(name), lock, wait(rnd), lease(rnd), null) == NOT_ACQUIRED) {
            return;
        }
        try {
            hold(rnd);
            if (rnd.nextInt(10) < 6) {
                long inner = history.nextOp();
                if (acquire(inner, op, Kind.REENTRANT, List.of(name), lock, 0, lease(rnd), null) != NOT_ACQUIRED) {
                    hold(rnd);
                    release(inner, Kind.REENTRANT, List.of(name), lock, null);
                }
            }
            hold(rnd);
        } finally {
            release(op, Kind.REENTRANT, List.of(name), lock, null);
        }
    }

    private void fenced(Random rnd) throws InterruptedException {
        String name = pick(rnd, FENCED);
        FencedLock lock = client.getFencedLock(name);
        long op = history.nextOp();
        if (broken) {
            // Skips the lock and borrows the latest token, as a client that ignores "not acquired" would.
            pretend(rnd, op, Kind.FENCED, name, lock.getToken());
            return;
        }
        long token = acquire(op, -1, Kind.FENCED, List.of(name), lock, wait(rnd), lease(rnd), null);
        if (token == NOT_ACQUIRED) {
            return;
        }
        try {
            section(rnd, name, token, history.owner(Thread.currentThread().getId()));
        } finally {
            release(op, Kind.FENCED, List.of(name), lock, null);
        }
    }

    private void simple(Random rnd, Kind kind, RedisLock lock) throws InterruptedException {
        long op = history.nextOp();
        List<String> names = List.of(nameOf(lock));
        if (acquire(op, -1, kind, names, lock, wait(rnd), lease(rnd), null) == NOT_ACQUIRED) {
            return;
        }
        try {
            hold(rnd);
        } finally {
            release(op, kind, names, lock, null);
        }
    }

    private void multi(Random rnd) throws InterruptedException {
        List<String> names = new ArrayList<>(REENTRANT);
        java.util.Collections.shuffle(names, rnd);
        names = List.copyOf(names.subList(0, 2 + rnd.nextInt(2)));
        MultiLock lock = MultiLock.of(names.stream().map(client::getLock).toArray(RedisLock[]::new));
        Long owner = rnd.nextBoolean() ? RedisLock.newOwnerId() : null;
        long op = history.nextOp();
        if (acquire(op, -1, Kind.MULTI, names, lock, wait(rnd), lease(rnd), owner) == NOT_ACQUIRED) {
            return;
        }
        try {
            hold(rnd);
        } finally {
            release(op, Kind.MULTI, names, lock, owner);
        }
    }

    private void handoff(Random rnd, ExecutorService pool) throws InterruptedException {
        boolean fenced = rnd.nextInt(10) < 4;
        String name = pick(rnd, fenced ? FENCED : REENTRANT);
        RedisLock lock = fenced ? client.getFencedLock(name) : client.getLock(name);
        Kind kind = fenced ? Kind.FENCED : Kind.REENTRANT;
        long owner = RedisLock.newOwnerId();
        long op = history.nextOp();
        long token = acquire(op, -1, kind, List.of(name), lock, wait(rnd), lease(rnd), owner);
        if (token == NOT_ACQUIRED) {
            return;
        }
        long holdSeed = rnd.nextLong();
        // Released by another thread, through the explicit owner id.
        pool.execute(() -> {
            Random local = new Random(holdSeed);
            try {
                if (fenced) {
                    section(local, name, token, history.owner(owner));
                } else {
                    hold(local);
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            } finally {
                release(op, kind, List.of(name), lock, owner);
            }
        });
    }

    private void section(Random rnd, String name, long token, String owner) throws InterruptedException {
        ledger.write(name, token, owner, "E");
        hold(rnd);
        ledger.write(name, token, owner, "X");
    }

    private void pretend(Random rnd, long op, Kind kind, String name, long token) throws InterruptedException {
        long self = Thread.currentThread().getId();
        history.record(op, -1, Type.ACQ, Phase.INV, kind, List.of(name), self, 0, 10_000, 0, "-");
        history.record(op, -1, Type.ACQ, Phase.OK, kind, List.of(name), self, 0, 10_000, token, "broken");
        try {
            if (kind == Kind.FENCED) {
                section(rnd, name, token, history.owner(self));
            } else {
                hold(rnd);
            }
        } finally {
            history.record(op, -1, Type.REL, Phase.INV, kind, List.of(name), self, 0, 10_000, 0, "-");
            history.record(op, -1, Type.REL, Phase.OK, kind, List.of(name), self, 0, 10_000, 0, "-");
        }
    }

    /** @return the token (0 when not fenced), or {@link #NOT_ACQUIRED} */
    private long acquire(
            long op,
            long parent,
            Kind kind,
            List<String> names,
            RedisLock lock,
            long wait,
            long lease,
            Long explicitOwner)
            throws InterruptedException {
        long owner =
                explicitOwner != null ? explicitOwner : Thread.currentThread().getId();
        history.record(op, parent, Type.ACQ, Phase.INV, kind, names, owner, wait, lease, 0, "-");
        try {
            long token;
            if (lock instanceof FencedLock fencedLock) {
                OptionalLong result = explicitOwner != null
                        ? fencedLock.tryLockAndGetToken(wait, lease, MS, owner)
                        : fencedLock.tryLockAndGetToken(wait, lease, MS);
                token = result.orElse(NOT_ACQUIRED);
            } else {
                boolean ok =
                        explicitOwner != null ? lock.tryLock(wait, lease, MS, owner) : lock.tryLock(wait, lease, MS);
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
            return token;
        } catch (InterruptedException ex) {
            history.record(op, parent, Type.ACQ, Phase.ERR, kind, names, owner, wait, lease, 0, ex.toString());
            throw ex;
        } catch (RuntimeException ex) {
            history.record(op, parent, Type.ACQ, Phase.ERR, kind, names, owner, wait, lease, 0, ex.toString());
            // A call that fails at once (no permission, read-only replica) must not spin the thread;
            // not drawn from the seeded random, so the sequence of operations does not depend on errors.
            Thread.sleep(50 + java.util.concurrent.ThreadLocalRandom.current().nextInt(150));
            return NOT_ACQUIRED;
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

    private static String nameOf(RedisLock lock) {
        return lock.getName();
    }

    private static String pick(Random rnd, List<String> names) {
        return names.get(rnd.nextInt(names.size()));
    }

    private static long wait(Random rnd) {
        int r = rnd.nextInt(100);
        return r < 15
                ? 0
                : r < 50 ? 50 + rnd.nextInt(1450) : r < 80 ? 2000 + rnd.nextInt(4000) : 10_000 + rnd.nextInt(15_000);
    }

    static long lease(Random rnd) {
        return rnd.nextInt(10) < 4 ? RedisLock.WATCHDOG_LEASE : 800 + rnd.nextInt(3200);
    }

    private static void hold(Random rnd) throws InterruptedException {
        int r = rnd.nextInt(100);
        Thread.sleep(r < 70 ? rnd.nextInt(150) : r < 95 ? 150 + rnd.nextInt(650) : 800 + rnd.nextInt(1700));
    }
}
