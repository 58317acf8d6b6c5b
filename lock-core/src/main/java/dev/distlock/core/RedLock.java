package dev.distlock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.distlock.core.internal.lock.CompositeLocks;

/**
 * Redis' Redlock algorithm over N independent Redis masters: the lock is held when a majority of
 * the masters granted it quickly enough. Each member is a lock of the same name obtained from a
 * {@link LockClient} connected to a different, independent master (not replicas of one another,
 * not nodes of one cluster). Use an odd number, 5 being the usual choice: the lock survives up to
 * {@code (N-1)/2} masters being down.
 *
 * <p><b>Acquiring.</b> One round asks every master at once for a single attempt and waits for the
 * answers at most a node timeout: 5% of the lease, no more than what is left of the caller's wait,
 * and at least 250 ms. The round succeeds when at least {@code N/2+1} masters granted the lock
 * within it and the validity left, {@code lease - elapsed - drift}, is still positive, where the
 * clock-drift allowance is {@code 1% of the lease + 2 ms} (the factor of Redis' reference
 * description). A master that is down or frozen therefore costs one node timeout, and no master is
 * asked again while an earlier call to it is still unanswered. Otherwise the round's grants, and
 * only those, are released (in parallel), a grant that arrives after the round is released when it
 * arrives, and a new round starts after a short random pause, until the wait is spent. A master
 * that failed or did not answer is not released: its grant, if the script ran after all, expires
 * with its lease like that of a single lock whose reply was lost, and releasing there could take
 * away an earlier, re-entered hold of the same owner. With the watchdog lease ({@code -1}) the
 * lease is the members' watchdog timeout and every member keeps renewing its own hold.
 *
 * <p><b>Releasing.</b> {@link #unlock()} releases on every master in parallel; masters that are
 * down are skipped (their hold expires with its lease). It fails only when no master released it:
 * with an {@link IllegalMonitorStateException} when the reachable masters do not hold it, else with
 * the failures of the unreachable ones.
 *
 * <p><b>Limits.</b> Redlock is only as safe as its timing assumptions. A holder whose process pauses
 * (GC, swapping, a stopped VM) longer than the validity keeps acting after its lock expired and
 * another client took it; a master whose clock jumps forward expires the hold early; a master that
 * restarts without persistence forgets the hold. Martin Kleppmann's critique
 * ("How to do distributed locking", 2016) explains why no lease-based lock can prevent two holders
 * in those cases. Where correctness matters, the protected resource must check a fencing token that
 * grows with every acquisition and reject writes carrying an older one; use Redlock only for
 * efficiency (avoiding duplicate work), or combine it with fencing.
 */
public final class RedLock extends CompositeRedisLock {

    /** Floor of the per-round answer timeout: below it a healthy but busy master would miss rounds. */
    static final long MIN_NODE_TIMEOUT_MILLIS = 250;

    private static final Logger log = LoggerFactory.getLogger(RedLock.class);

    private final List<RedisLock> locks;
    private final int quorum;
    private final String name;

    private RedLock(List<RedisLock> locks) {
        this.locks = locks;
        this.quorum = locks.size() / 2 + 1;
        this.name = CompositeLocks.joinedName(locks);
    }

    /**
     * Creates a red lock over one lock per independent master.
     * @param locks the members, at least one (an odd number, three or more, is what makes sense)
     * @return the red lock
     */
    public static RedLock of(RedisLock... locks) {
        return new RedLock(CompositeLocks.requireMembers("RedLock", locks));
    }

    /**
     * Returns how many masters must grant the lock: {@code N/2+1}.
     * @return the quorum
     */
    public int getQuorum() {
        return quorum;
    }

    /**
     * Returns the clock-drift allowance subtracted from the lease: 1% of it plus 2 ms.
     * @param leaseMillis lease in ms
     * @return the allowance in ms
     */
    public static long driftAllowanceMillis(long leaseMillis) {
        return leaseMillis / 100 + 2;
    }

    /**
     * Returns a view whose members report to the given listener too ({@link RedisLock#withListener}
     * on each member), so that events name the member concerned.
     * @param listener the listener
     * @return a view of this lock
     */
    @Override
    public RedLock withListener(LockListener listener) {
        Objects.requireNonNull(listener, "'listener' must not be null");
        return new RedLock(locks.stream().map(member -> member.withListener(listener)).toList());
    }

    /**
     * Returns the members.
     * @return the members in the order given
     */
    public List<RedisLock> getLocks() {
        return locks;
    }

    /** @return the members' names, e.g. {@code [a, a, a]} */
    @Override
    public String getName() {
        return name;
    }









    /**
     * Returns how long one round waits for the masters' answers: 5% of the lease (Redlock asks for
     * a timeout small against the lease, so that a master that is down costs little of it), at
     * most the caller's remaining wait, and never less than {@value #MIN_NODE_TIMEOUT_MILLIS} ms.
     * @param leaseMillis lease in ms
     * @param remainingWaitMillis what is left of the caller's wait in ms, or {@code -1} for no bound
     * @return the per-round answer timeout in ms
     */
    static long nodeTimeoutMillis(long leaseMillis, long remainingWaitMillis) {
        long timeout = leaseMillis / 20;
        if (remainingWaitMillis >= 0) {
            timeout = Math.min(timeout, remainingWaitMillis);
        }
        return Math.max(MIN_NODE_TIMEOUT_MILLIS, timeout);
    }

    @Override
    boolean acquire(long waitMillis, long leaseMillis, long ownerId) throws InterruptedException {
        long deadline = waitMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        // The call of an earlier round that a master has not answered yet: such a master is not
        // asked again (its connection is stuck; more scripts would only pile up behind it).
        List<CompletableFuture<?>> busy = new ArrayList<>(java.util.Collections.nCopies(locks.size(), null));
        while (true) {
            if (round(deadline, leaseMillis, ownerId, busy)) {
                return true;
            }
            if (System.nanoTime() >= deadline) {
                return false;
            }
            // Redlock's random retry delay, so that competing clients do not split the votes again.
            CompositeLocks.backOff(20, 120, deadline);
        }
    }

    private boolean round(long deadline, long leaseMillis, long ownerId, List<CompletableFuture<?>> busy)
            throws InterruptedException {
        long start = System.nanoTime();
        long lease = Long.MAX_VALUE;
        for (RedisLock lock : locks) {
            lease = Math.min(lease, CompositeLocks.effectiveLeaseMillis(lock, leaseMillis));
        }
        long remaining = deadline == Long.MAX_VALUE ? -1 : Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - start));
        long timeout = nodeTimeoutMillis(lease, remaining);
        // Every master is asked at once, each for a single attempt; the round waits for the answers
        // at most the node timeout, so a master that is down or frozen costs that much, once.
        List<CompletableFuture<Boolean>> asks = new ArrayList<>(locks.size());
        for (int i = 0; i < locks.size(); i++) {
            CompletableFuture<?> previous = busy.get(i);
            if (previous != null && !previous.isDone()) {
                asks.add(null);
                continue;
            }
            CompletableFuture<Boolean> ask = CompositeLocks.tryOnceAsync(locks.get(i), leaseMillis, ownerId);
            busy.set(i, ask);
            asks.add(ask);
        }
        List<CompletableFuture<Boolean>> pending = asks.stream().filter(Objects::nonNull).toList();
        boolean interrupted = false;
        try {
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(timeout, TimeUnit.MILLISECONDS);
        }
        catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException ex) {
            // Some masters failed or did not answer in time: they do not vote.
        }
        catch (InterruptedException ex) {
            interrupted = true;
        }
        List<RedisLock> granted = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            CompletableFuture<Boolean> ask = asks.get(i);
            if (ask == null) {
                continue;
            }
            if (ask.isDone()) {
                if (!ask.isCompletedExceptionally() && ask.join()) {
                    granted.add(locks.get(i));
                }
                else if (ask.isCompletedExceptionally()) {
                    log.debug("Red lock {}: master {} of {} failed", name, i + 1, locks.size(),
                            ask.handle((ok, failure) -> failure).join());
                }
            }
            else {
                // Not counted: a grant that arrives late is this round's, and is undone when it arrives.
                RedisLock lock = locks.get(i);
                busy.set(i, ask.thenCompose(ok -> ok ? CompositeLocks.releaseAsync(List.of(lock), ownerId)
                        : CompletableFuture.completedFuture(null)));
            }
        }
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        long validity = lease - elapsed - driftAllowanceMillis(lease);
        if (!interrupted && granted.size() >= quorum && validity > 0) {
            return true;
        }
        log.debug("Red lock {}: {} of {} masters granted within {} ms (quorum {}), validity {} ms; releasing the grants",
                name, granted.size(), locks.size(), timeout, quorum, validity);
        // Only this round's grants are undone, one release each: a master that refused, failed or
        // did not answer may hold an earlier, re-entered hold of the same owner, which a release
        // there would take away.
        CompletableFuture<Void> rollback = CompositeLocks.releaseAsync(granted, ownerId);
        for (int i = 0; i < locks.size(); i++) {
            if (granted.contains(locks.get(i))) {
                busy.set(i, rollback);
            }
        }
        try {
            rollback.get();
        }
        catch (java.util.concurrent.ExecutionException ex) {
            // releaseAsync never fails.
        }
        catch (InterruptedException ex) {
            interrupted = true;
        }
        if (interrupted) {
            throw new InterruptedException("interrupted while acquiring red lock " + name);
        }
        return false;
    }

    @Override
    public void unlock(long ownerId) {
        List<CompletableFuture<Void>> calls = new ArrayList<>(locks.size());
        for (RedisLock lock : locks) {
            // In parallel: a master that is down costs one command timeout, not one per master.
            calls.add(CompletableFuture.runAsync(() -> lock.unlock(ownerId), CompositeLocks.memberCalls()));
        }
        int released = 0;
        int notHeld = 0;
        List<RuntimeException> failures = new ArrayList<>();
        for (CompletableFuture<Void> call : calls) {
            Throwable failure = call.handle((ok, ex) -> ex).join();
            Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause == null) {
                released++;
            }
            else if (cause instanceof IllegalMonitorStateException) {
                notHeld++;
            }
            else if (cause instanceof RuntimeException runtime) {
                failures.add(runtime);
            }
            else {
                failures.add(new LockException("Cannot unlock red lock " + name + ": " + cause.getMessage(), cause));
            }
        }
        if (released > 0) {
            if (!failures.isEmpty()) {
                log.warn("Red lock {}: released on {} of {} masters; {} failed and expire with their lease", name,
                        released, locks.size(), failures.size());
            }
            return;
        }
        if (notHeld > 0) {
            IllegalMonitorStateException ex = new IllegalMonitorStateException("Cannot unlock red lock " + name
                    + ": none of its " + notHeld + " reachable masters (of " + locks.size() + ") holds it for owner "
                    + ownerId + " (expired, force-unlocked or never taken)");
            failures.forEach(ex::addSuppressed);
            throw ex;
        }
        CompositeLocks.throwAll(failures);
    }

    /** @return whether at least a quorum of masters report the lock held */
    @Override
    public boolean isLocked() {
        return count(RedisLock::isLocked) >= quorum;
    }


    /** @return whether at least a quorum of masters report the lock held by the owner */
    @Override
    public boolean isHeldBy(long ownerId) {
        return count(lock -> lock.isHeldBy(ownerId)) >= quorum;
    }

    /** @return the hold count that at least a quorum of masters report for the calling thread */
    @Override
    public int getHoldCount() {
        // Asked in turn on the calling thread: a member's hold count is that of the calling thread.
        List<Long> values = new ArrayList<>();
        for (RedisLock lock : locks) {
            try {
                values.add((long) lock.getHoldCount());
            }
            catch (RuntimeException ex) {
                values.add(0L);
            }
        }
        return (int) quorumValue(values);
    }

    /** @return the remaining lease that at least a quorum of masters still have, or {@code -2} */
    @Override
    public long remainTimeToLive() {
        return quorumValue(onEach(RedisLock::remainTimeToLive).stream().map(ttl -> ttl == null ? -2L : ttl).toList());
    }

    /** @return whether the lock was deleted on any master */
    @Override
    public boolean forceUnlock() {
        return onEach(RedisLock::forceUnlock).stream().anyMatch(Boolean.TRUE::equals);
    }

    /**
     * Asks every master at once (a master that is down costs one command timeout, not one each).
     * @return each master's answer, {@code null} where it failed
     */
    private <T> List<@Nullable T> onEach(java.util.function.Function<RedisLock, T> query) {
        List<CompletableFuture<T>> calls = new ArrayList<>(locks.size());
        for (RedisLock lock : locks) {
            calls.add(CompletableFuture.supplyAsync(() -> query.apply(lock), CompositeLocks.memberCalls()));
        }
        List<@Nullable T> answers = new ArrayList<>(locks.size());
        for (CompletableFuture<T> call : calls) {
            answers.add(call.handle((answer, failure) -> {
                if (failure != null) {
                    log.debug("Red lock {}: a master did not answer", name, failure);
                    return null;
                }
                return answer;
            }).join());
        }
        return answers;
    }

    private int count(java.util.function.Predicate<RedisLock> test) {
        // A master that is down does not vote.
        return (int) onEach(test::test).stream().filter(Boolean.TRUE::equals).count();
    }

    private long quorumValue(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(java.util.Comparator.reverseOrder());
        return sorted.get(quorum - 1);
    }

    @Override
    public String toString() {
        return "RedLock" + name;
    }
}
