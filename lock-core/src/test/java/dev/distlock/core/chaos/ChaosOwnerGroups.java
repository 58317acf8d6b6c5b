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
 * Asynchronous callers of one explicit owner, as a reactive flow joining several branches makes:
 * 2-4 {@code tryLockAsync} calls of one owner on one lock at once, each an operation of its own that
 * enters the {@link ExclusionRegister} when granted, holds a while and unlocks with {@code unlockAsync}.
 * The first grant takes the lock; the others re-enter (past any waiter line). All calls of a group ask
 * for the same lease, so whichever grant or release sets the key's expiry, it never shortens what an
 * earlier grant of the group gave ({@link ChaosChecker} counts each call's lease from its invocation).
 * Nothing here reads the lease in Redis: a read by one call would not bound the others'.
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
        boolean write = rnd.nextInt(4) == 0;
        String name = ChaosOperations.pick(rnd, write ? ChaosOperations.READ_WRITE : ChaosOperations.REENTRANT);
        RedisLock lock = write ? client.getReadWriteLock(name).writeLock() : client.getLock(name);
        Kind kind = write ? Kind.WRITE : Kind.REENTRANT;
        long owner = RedisLock.newOwnerId();
        long lease = ChaosOperations.lease(rnd);
        long wait = Math.min(ChaosOperations.wait(rnd), 6000);
        int calls = 2 + rnd.nextInt(3);
        List<CompletableFuture<?>> flows = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            long holdMillis = rnd.nextInt(10) < 8 ? rnd.nextInt(200) : 200 + rnd.nextInt(800);
            flows.add(call(lock, kind, List.of(name), owner, wait, lease, holdMillis, pool));
        }
        try {
            CompletableFuture.allOf(flows.toArray(CompletableFuture[]::new)).get(wait + 60_000, MS);
        } catch (java.util.concurrent.ExecutionException | TimeoutException ex) {
            // recorded in the history by each flow; a flow that never ends shows as unanswered
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
            ExecutorService pool) {
        long op = history.nextOp();
        String opId = history.opId(op);
        String ownerName = history.owner(owner);
        history.record(op, -1, Type.ACQ, Phase.INV, kind, names, owner, wait, lease, 0, "-");
        CompletableFuture<Boolean> acquired;
        try {
            acquired = lock.tryLockAsync(wait, lease, MS, owner).toCompletableFuture();
        } catch (RuntimeException ex) {
            acquired = CompletableFuture.failedFuture(ex);
        }
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
                                names.forEach(n -> register.enter(n, opId, ownerName, false, 0));
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
                                                names.forEach(n -> register.exit(n, opId, ownerName, false, 0));
                                                history.record(
                                                        op, -1, Type.REL, Phase.INV, kind, names, owner, 0, 0, 0, "-");
                                                try {
                                                    return lock.unlockAsync(owner)
                                                            .toCompletableFuture();
                                                } catch (RuntimeException ex) {
                                                    return CompletableFuture.<Void>failedFuture(ex);
                                                }
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
