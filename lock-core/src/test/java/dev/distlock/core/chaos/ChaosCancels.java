package dev.distlock.core.chaos;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockInfo;
import dev.distlock.core.MultiLock;
import dev.distlock.core.RedisLock;
import dev.distlock.core.chaos.Event.Kind;
import dev.distlock.core.chaos.Event.Phase;
import dev.distlock.core.chaos.Event.Type;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Asynchronous acquisitions cancelled at random points, each checked on the spot: while it waits
 * behind other holders, as its first attempt races the grant, and as a re-entry of a hold with an
 * explicit lease. A cancelled call must leave no hold behind (nobody will unlock it), and a cancelled
 * re-entry must leave the outer hold's lease as it was.
 *
 * <p>Each cancel is recorded as a {@code CANCEL} operation: {@code INV} when the cancel is issued, then
 * {@code OK} (checked), {@code ERR} (a hold outlived its cancelled caller; the detail says how) or
 * {@code FAIL} (the check could not read Redis, during a fault). A call that completed before the cancel
 * is an ordinary acquisition, recorded and released as such, and judged by the other rules.
 */
final class ChaosCancels {

    private static final TimeUnit MS = TimeUnit.MILLISECONDS;

    private final LockClient client;
    private final HistoryWriter history;
    private final long graceMillis;
    private final long watchMillis;

    ChaosCancels(LockClient client, HistoryWriter history, long commandTimeoutMillis) {
        this.client = client;
        this.history = history;
        // The give-back of a grant that raced the cancel is one command, sent when the grant arrives.
        this.graceMillis = 2 * commandTimeoutMillis + 500;
        // Long enough for a cancelled waiter's holder to let go, so that a grant made for nobody shows.
        this.watchMillis = graceMillis + 2500;
    }

    /** One cancelled call, of a random kind, at a random point. */
    void run(Random rnd) throws InterruptedException {
        int point = rnd.nextInt(3);
        if (point == 2) {
            reentry(rnd);
        } else {
            waiting(rnd, point == 1);
        }
    }

    private record Target(Kind kind, List<String> names, RedisLock lock, List<RedisLock> members) {}

    private Target target(Random rnd, boolean reentry) {
        int pick = rnd.nextInt(reentry ? 4 : 6);
        switch (pick) {
            case 0 -> {
                String name = pick(rnd, ChaosOperations.REENTRANT);
                RedisLock lock = client.getLock(name);
                return new Target(Kind.REENTRANT, List.of(name), lock, List.of(lock));
            }
            case 1 -> {
                String name = pick(rnd, ChaosOperations.FENCED);
                RedisLock lock = client.getFencedLock(name);
                return new Target(Kind.FENCED, List.of(name), lock, List.of(lock));
            }
            case 2 -> {
                String name = pick(rnd, ChaosOperations.FAIR);
                RedisLock lock = client.getFairLock(name);
                return new Target(Kind.FAIR, List.of(name), lock, List.of(lock));
            }
            case 3 -> {
                String name = pick(rnd, ChaosOperations.READ_WRITE);
                RedisLock lock = client.getReadWriteLock(name).writeLock();
                return new Target(Kind.WRITE, List.of(name), lock, List.of(lock));
            }
            case 4 -> {
                String name = pick(rnd, ChaosOperations.READ_WRITE);
                RedisLock lock = client.getReadWriteLock(name).readLock();
                return new Target(Kind.READ, List.of(name), lock, List.of(lock));
            }
            default -> {
                List<String> names = new ArrayList<>(ChaosOperations.REENTRANT);
                Collections.shuffle(names, rnd);
                names = List.copyOf(names.subList(0, 2));
                List<RedisLock> members = names.stream().map(client::getLock).toList();
                return new Target(Kind.MULTI, names, MultiLock.of(members.toArray(RedisLock[]::new)), members);
            }
        }
    }

    /** Cancels a call while it waits (after up to 1.5 s) or as its first attempt is answered (racing). */
    private void waiting(Random rnd, boolean racing) throws InterruptedException {
        Target target = target(rnd, false);
        long owner = RedisLock.newOwnerId();
        long lease = ChaosOperations.lease(rnd);
        int shape = rnd.nextInt(3);
        long wait = shape == 0 ? -1 : 2000 + rnd.nextInt(8000);
        // The call starts here: an outcome that beats the cancel is checked from this moment, not the cancel's.
        long startedAt = System.currentTimeMillis();
        CompletableFuture<?> call;
        if (shape == 0) {
            call = target.lock().lockAsync(lease, MS, owner).toCompletableFuture();
        } else if (shape == 1 && target.lock() instanceof FencedLock fenced) {
            call = fenced.tryLockAndGetTokenAsync(wait, lease, MS, owner).toCompletableFuture();
        } else {
            call = target.lock().tryLockAsync(wait, lease, MS, owner).toCompletableFuture();
        }
        long op = history.nextOp();
        String point = racing ? "racing a grant" : "while waiting";
        if (racing) {
            if (rnd.nextBoolean()) {
                Thread.sleep(rnd.nextInt(3));
            }
        } else {
            Thread.sleep(50 + rnd.nextInt(1450));
        }
        history.record(op, -1, Type.CANCEL, Phase.INV, target.kind(), target.names(), owner, wait, lease, 0, point);
        long cancelledAt = System.currentTimeMillis();
        if (!call.cancel(false)) {
            completedFirst(op, target, owner, wait, lease, call, startedAt);
            return;
        }
        long lastHeld = -1;
        while (System.currentTimeMillis() - cancelledAt < watchMillis) {
            boolean held;
            try {
                held = target.members().stream().anyMatch(member -> member.isHeldBy(owner));
            } catch (RuntimeException ex) {
                history.record(
                        op,
                        -1,
                        Type.CANCEL,
                        Phase.FAIL,
                        target.kind(),
                        target.names(),
                        owner,
                        wait,
                        lease,
                        0,
                        ex.toString());
                return;
            }
            long now = System.currentTimeMillis();
            if (held) {
                lastHeld = now;
                if (now - cancelledAt > graceMillis) {
                    history.record(
                            op,
                            -1,
                            Type.CANCEL,
                            Phase.ERR,
                            target.kind(),
                            target.names(),
                            owner,
                            wait,
                            lease,
                            0,
                            point + ": the cancelled owner still holds the lock " + (now - cancelledAt)
                                    + " ms after the cancel");
                    return;
                }
            }
            Thread.sleep(100);
        }
        history.record(
                op,
                -1,
                Type.CANCEL,
                Phase.OK,
                target.kind(),
                target.names(),
                owner,
                wait,
                lease,
                0,
                point + (lastHeld < 0 ? ": never held" : ": given back within " + (lastHeld - cancelledAt) + " ms"));
    }

    /** The call completed before the cancel: an ordinary acquisition, held briefly and released. */
    private void completedFirst(
            long op, Target target, long owner, long wait, long lease, CompletableFuture<?> call, long startedAt)
            throws InterruptedException {
        history.recordAt(
                startedAt, op, -1, Type.ACQ, Phase.INV, target.kind(), target.names(), owner, wait, lease, 0, "-");
        Object value;
        try {
            value = call.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException ex) {
            history.record(
                    op, -1, Type.ACQ, Phase.ERR, target.kind(), target.names(), owner, wait, lease, 0, ex.toString());
            return;
        }
        boolean acquired = value == null || Boolean.TRUE.equals(value) || value instanceof Long;
        long token = value instanceof Long issued ? issued : 0;
        history.record(
                op,
                -1,
                Type.ACQ,
                acquired ? Phase.OK : Phase.FAIL,
                target.kind(),
                target.names(),
                owner,
                wait,
                lease,
                token,
                "-");
        if (acquired) {
            release(op, target, owner);
        }
    }

    /**
     * Takes a hold with an explicit lease, then cancels an asynchronous re-entry of the same owner
     * before or as its reply arrives, and checks that the given-back re-entry left the outer lease.
     */
    private void reentry(Random rnd) throws InterruptedException {
        Target target = target(rnd, true);
        RedisLock lock = target.lock();
        long owner = RedisLock.newOwnerId();
        long outerLease = 800 + rnd.nextInt(3200);
        long op = history.nextOp();
        history.record(op, -1, Type.ACQ, Phase.INV, target.kind(), target.names(), owner, 0, outerLease, 0, "-");
        boolean acquired;
        try {
            acquired = lock.tryLock(0, outerLease, MS, owner);
        } catch (RuntimeException ex) {
            history.record(
                    op, -1, Type.ACQ, Phase.ERR, target.kind(), target.names(), owner, 0, outerLease, 0, ex.toString());
            return;
        }
        long grantedBy = System.currentTimeMillis();
        history.record(
                op,
                -1,
                Type.ACQ,
                acquired ? Phase.OK : Phase.FAIL,
                target.kind(),
                target.names(),
                owner,
                0,
                outerLease,
                0,
                "-");
        if (!acquired) {
            return;
        }
        try {
            long innerLease = rnd.nextBoolean() ? RedisLock.WATCHDOG_LEASE : 6000 + rnd.nextInt(14_000);
            CompletableFuture<Boolean> inner =
                    lock.tryLockAsync(0, innerLease, MS, owner).toCompletableFuture();
            if (rnd.nextBoolean()) {
                Thread.sleep(rnd.nextInt(2));
            }
            long cancelOp = history.nextOp();
            record(cancelOp, op, Phase.INV, target, owner, innerLease, "re-entry");
            if (!inner.cancel(false)) {
                // Granted first: an ordinary nested hold. Its unlock does not say which of the owner's
                // two holds it ends, so the lock keeps the longest lease still owed, the re-entry's:
                // only a given-back re-entry must leave the outer lease.
                boolean reentered = inner.join();
                if (reentered) {
                    lock.unlock(owner);
                    record(cancelOp, op, Phase.OK, target, owner, innerLease, "re-entry granted before the cancel");
                    return;
                }
            }
            checkOuterLease(cancelOp, op, target, owner, innerLease, outerLease, grantedBy);
        } finally {
            release(op, target, owner);
        }
    }

    /**
     * Watches the lock for the grace period: whenever the owner is down to the outer hold again (the
     * re-entry not yet granted, or given back), the lease must be no more than the outer one left; a
     * re-entry still counted after the grace period was never given back.
     */
    private void checkOuterLease(
            long cancelOp, long parent, Target target, long owner, long innerLease, long outerLease, long grantedBy)
            throws InterruptedException {
        String name = target.names().get(0);
        long cancelledAt = System.currentTimeMillis();
        String verdict = "re-entry";
        while (true) {
            // Redis read the TTL after this: what was left of the outer lease then is at most its end minus this.
            long asked = System.currentTimeMillis();
            LockInfo info;
            try {
                info = client.inspect(name);
            } catch (RuntimeException ex) {
                record(cancelOp, parent, Phase.FAIL, target, owner, innerLease, ex.toString());
                return;
            }
            long now = System.currentTimeMillis();
            long holds = holdsOf(info.holders(), owner);
            // The outer lease began when its script ran, no later than its reply. Counted to when the
            // read was sent, not to its reply: a stall of this JVM after the read is not lease time.
            long allowed = grantedBy + outerLease - asked + ChaosRun.PARAMS.clockErrorMillis() + 50;
            if (holds == 1 && info.remainingTtlMillis() > Math.max(allowed, 0)) {
                record(
                        cancelOp,
                        parent,
                        Phase.ERR,
                        target,
                        owner,
                        innerLease,
                        "re-entry: lease " + info.remainingTtlMillis() + " ms left where the outer hold allows "
                                + allowed + " ms");
                return;
            }
            if (holds >= 2 && now - cancelledAt > graceMillis) {
                record(
                        cancelOp,
                        parent,
                        Phase.ERR,
                        target,
                        owner,
                        innerLease,
                        "re-entry: not given back within " + (now - cancelledAt) + " ms");
                return;
            }
            if (holds == 0 || now - cancelledAt > graceMillis) {
                record(cancelOp, parent, Phase.OK, target, owner, innerLease, verdict);
                return;
            }
            Thread.sleep(50);
        }
    }

    private void record(long op, long parent, Phase phase, Target target, long owner, long lease, String detail) {
        history.record(op, parent, Type.CANCEL, phase, target.kind(), target.names(), owner, 0, lease, 0, detail);
    }

    private long holdsOf(Map<String, Long> holders, long owner) {
        String field = client.getId() + ":" + owner;
        return holders.entrySet().stream()
                .filter(e -> e.getKey().equals(field) || e.getKey().equals(field + ":write"))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    private void release(long op, Target target, long owner) {
        history.record(op, -1, Type.REL, Phase.INV, target.kind(), target.names(), owner, 0, 0, 0, "-");
        try {
            target.lock().unlock(owner);
            history.record(op, -1, Type.REL, Phase.OK, target.kind(), target.names(), owner, 0, 0, 0, "-");
        } catch (RuntimeException ex) {
            history.record(op, -1, Type.REL, Phase.ERR, target.kind(), target.names(), owner, 0, 0, 0, ex.toString());
        }
    }

    private static String pick(Random rnd, List<String> names) {
        return names.get(rnd.nextInt(names.size()));
    }
}
