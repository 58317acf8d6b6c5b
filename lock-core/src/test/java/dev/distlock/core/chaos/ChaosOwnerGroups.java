package dev.distlock.core.chaos;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.chaos.Event.Kind;
import dev.distlock.core.chaos.Event.Phase;
import dev.distlock.core.chaos.Event.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Tasks sharing one explicit owner, as a request that fans out or a reactive flow joining several
 * branches makes: 2-4 calls of one owner on one lock at once, on every single-key kind, each an
 * operation of its own that enters the {@link ExclusionRegister} when granted, holds a while and
 * unlocks. Each call picks its own lease (the watchdog, an explicit one, or one short enough to lapse
 * while held) and goes through the blocking methods or the asynchronous ones, so re-entries overlap
 * unlocks of other tasks and grants and releases are booked on different threads, in any order. The
 * promise checked is the documented one: each grant is one hold, and an unlock of one task neither
 * lets another owner in nor shortens what the remaining calls were granted ({@link ChaosChecker}
 * counts each call's lease from its own invocation). Nothing here reads the lease in Redis: a read by
 * one call would not bound the others'.
 */
final class ChaosOwnerGroups {

    private static final TimeUnit MS = TimeUnit.MILLISECONDS;

    private final LockClient client;
    private final HistoryWriter history;
    private final ExclusionRegister register;

    ChaosOwnerGroups(LockClient client, HistoryWriter history, ExclusionRegister register) {
        this.client = client;
        this.history = history;
        this.register = register;
    }

    void run(Random rnd, ExecutorService pool) throws InterruptedException {
        Kind kind = KINDS.get(rnd.nextInt(KINDS.size()));
        String name = ChaosOperations.pick(rnd, names(kind));
        RedisLock lock = lock(kind, name);
        long owner = RedisLock.newOwnerId();
        long wait = Math.min(ChaosOperations.wait(rnd), 6000);
        int calls = 2 + rnd.nextInt(3);
        List<CompletableFuture<?>> flows = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            long lease = ChaosOperations.lease(rnd);
            long holdMillis = rnd.nextInt(10) < 8 ? rnd.nextInt(200) : 200 + rnd.nextInt(800);
            flows.add(call(lock, kind, List.of(name), owner, wait, lease, holdMillis, rnd.nextBoolean(), pool));
        }
        try {
            CompletableFuture.allOf(flows.toArray(CompletableFuture[]::new)).get(wait + 60_000, MS);
        } catch (java.util.concurrent.ExecutionException | TimeoutException ex) {
            // recorded in the history by each flow; a flow that never ends shows as unanswered
        }
    }

    private static final List<Kind> KINDS = List.of(Kind.REENTRANT, Kind.FENCED, Kind.FAIR, Kind.WRITE, Kind.READ);

    private static List<String> names(Kind kind) {
        return switch (kind) {
            case FENCED -> ChaosOperations.FENCED;
            case FAIR -> ChaosOperations.FAIR;
            case READ, WRITE -> ChaosOperations.READ_WRITE;
            default -> ChaosOperations.REENTRANT;
        };
    }

    private RedisLock lock(Kind kind, String name) {
        return switch (kind) {
            case FENCED -> client.getFencedLock(name);
            case FAIR -> client.getFairLock(name);
            case READ -> client.getReadWriteLock(name).readLock();
            case WRITE -> client.getReadWriteLock(name).writeLock();
            default -> client.getLock(name);
        };
    }

    /** The blocking call on a pool thread, or the asynchronous one: either way a future. */
    private static CompletableFuture<Boolean> tryLock(
            RedisLock lock, long wait, long lease, long owner, boolean blocking, ExecutorService pool) {
        if (blocking) {
            return CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return lock.tryLock(wait, lease, MS, owner);
                        } catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                            throw new java.util.concurrent.CompletionException(ex);
                        }
                    },
                    pool);
        }
        try {
            return lock.tryLockAsync(wait, lease, MS, owner).toCompletableFuture();
        } catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    private static CompletableFuture<Void> unlock(RedisLock lock, long owner, boolean blocking) {
        try {
            if (blocking) {
                // Already on a pool thread: the blocking unlock books its outcome here.
                lock.unlock(owner);
                return CompletableFuture.completedFuture(null);
            }
            return lock.unlockAsync(owner).toCompletableFuture();
        } catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    private CompletableFuture<?> call(
            RedisLock lock,
            Kind kind,
            List<String> names,
            long owner,
            long wait,
            long lease,
            long holdMillis,
            boolean blocking,
            ExecutorService pool) {
        long op = history.nextOp();
        String opId = history.opId(op);
        String ownerName = history.owner(owner);
        history.record(op, -1, Type.ACQ, Phase.INV, kind, names, owner, wait, lease, 0, "-");
        CompletableFuture<Boolean> acquired = tryLock(lock, wait, lease, owner, blocking, pool);
        return acquired.handleAsync(
                        (ok, failure) -> {
                            if (failure != null) {
                                history.record(
                                        op,
                                        -1,
                                        Type.ACQ,
                                        Phase.ERR,
                                        kind,
                                        names,
                                        owner,
                                        wait,
                                        lease,
                                        0,
                                        unwrap(failure).toString());
                                return false;
                            }
                            history.record(
                                    op,
                                    -1,
                                    Type.ACQ,
                                    ok ? Phase.OK : Phase.FAIL,
                                    kind,
                                    names,
                                    owner,
                                    wait,
                                    lease,
                                    0,
                                    "-");
                            if (ok) {
                                names.forEach(n -> register.enter(n, opId, ownerName, !kind.exclusive(), 0));
                            }
                            return ok;
                        },
                        pool)
                .thenComposeAsync(
                        ok -> {
                            if (!ok) {
                                return CompletableFuture.completedFuture(null);
                            }
                            // Slept on a pool thread: CompletableFuture's delay scheduler is a thread that never ends.
                            return CompletableFuture.runAsync(() -> sleep(holdMillis), pool)
                                    .thenComposeAsync(
                                            ignored -> {
                                                names.forEach(
                                                        n -> register.exit(n, opId, ownerName, !kind.exclusive(), 0));
                                                history.record(
                                                        op, -1, Type.REL, Phase.INV, kind, names, owner, 0, 0, 0, "-");
                                                return unlock(lock, owner, blocking);
                                            },
                                            pool)
                                    .handleAsync(
                                            (done, failure) -> {
                                                history.record(
                                                        op,
                                                        -1,
                                                        Type.REL,
                                                        failure == null ? Phase.OK : Phase.ERR,
                                                        kind,
                                                        names,
                                                        owner,
                                                        0,
                                                        0,
                                                        0,
                                                        failure == null
                                                                ? "-"
                                                                : unwrap(failure)
                                                                        .toString());
                                                return null;
                                            },
                                            pool);
                        },
                        pool);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause()
                : failure;
    }
}
