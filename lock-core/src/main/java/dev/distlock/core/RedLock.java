package dev.distlock.core;

import dev.distlock.core.internal.composite.Members;
import dev.distlock.core.internal.composite.RedLockAcquisition;
import dev.distlock.core.internal.composite.RedLockQueries;
import dev.distlock.core.internal.composite.RedLockTiming;
import dev.distlock.core.internal.composite.Releases;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

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
 * <p><b>Keeping a majority.</b> A hold taken with the watchdog lease is also renewed as a whole
 * every third of the members' watchdog timeout, on every master with the owner-checked renewal
 * script (go-redsync's extend). While a quorum of masters confirm it, a master that answers that it
 * lost it (restarted without persistence, evicted or expired the key) is taken again with one
 * attempt, so that losing another master later still leaves a majority; a master that another owner
 * holds now is not taken, and is asked again at the next round. Once a majority of masters answer
 * that they no longer hold it, its lease is lost, as a single lock's is: a warning, {@link
 * LockListener#onLeaseLost} with this lock's {@link #getName() name} (each listener of the members'
 * clients and views hears it once), the members' holds are no longer renewed, {@link #isHeldBy}
 * answers {@code false} and {@link #unlock()} throws {@link IllegalMonitorStateException}. A master
 * that does not answer counts neither way: the next round asks again.
 *
 * <p><b>Releasing.</b> {@link #unlock()} releases on every master in parallel; masters that are
 * down are skipped (their hold expires with its lease). It fails with an {@link
 * IllegalMonitorStateException} when the reachable masters do not hold it, or when a majority of
 * the masters answer that they no longer hold it (its lease was lost; the masters that still hold
 * it release it all the same), and with the failures of the unreachable ones when no master
 * released it.
 *
 * <p><b>Asynchronous use.</b> {@link #tryLockAsync}, {@link #lockAsync} and {@link #unlockAsync}
 * send every master's call at once through the members' asynchronous API and count the answers
 * as they arrive, so a waiting acquisition holds no thread; the blocking methods wait for those
 * same stages. Cancelling a waiting acquisition ends its round at once and releases its grants.
 *
 * <p><b>Limits.</b> Redlock is only as safe as its timing assumptions. A holder whose process pauses
 * (GC, swapping, a stopped VM) longer than the validity keeps acting after its lock expired and
 * another client took it; a master whose clock jumps forward expires the hold early; a master that
 * restarts without persistence forgets the hold, and until it is taken again another client may
 * take it there (with an explicit lease it is not taken again at all). Martin Kleppmann's critique
 * ("How to do distributed locking", 2016) explains why no lease-based lock can prevent two holders
 * in those cases. Where correctness matters, the protected resource must check a fencing token that
 * grows with every acquisition and reject writes carrying an older one; use Redlock only for
 * efficiency (avoiding duplicate work), or combine it with fencing.
 */
public final class RedLock extends CompositeRedisLock {

    private final List<RedisLock> locks;
    private final int quorum;
    private final String name;
    private final RedLockQueries queries;

    private RedLock(List<RedisLock> locks) {
        this.locks = locks;
        this.quorum = locks.size() / 2 + 1;
        this.name = Members.joinedName(locks);
        this.queries = new RedLockQueries(locks, quorum, name);
    }

    /**
     * Creates a red lock over one lock per independent master.
     * @param locks the members, at least one (an odd number, three or more, is what makes sense)
     * @return the red lock
     */
    public static RedLock of(RedisLock... locks) {
        return new RedLock(Members.require("RedLock", locks));
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
        return RedLockTiming.driftAllowanceMillis(leaseMillis);
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
        return new RedLock(
                locks.stream().map(member -> member.withListener(listener)).toList());
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

    @Override
    CompletableFuture<Boolean> acquireAsync(long waitMillis, long leaseMillis, long ownerId) {
        return RedLockAcquisition.start(locks, name, waitMillis, leaseMillis, ownerId);
    }

    @Override
    CompletableFuture<Void> releaseAsync(long ownerId) {
        return Releases.red(locks, name, ownerId);
    }

    /** @return whether at least a quorum of masters report the lock held */
    @Override
    public boolean isLocked() {
        return queries.isLocked();
    }

    /** @return whether at least a quorum of masters report the lock held by the owner */
    @Override
    public boolean isHeldBy(long ownerId) {
        return queries.isHeldBy(ownerId);
    }

    /** @return the hold count that at least a quorum of masters report for the calling thread */
    @Override
    public int getHoldCount() {
        return queries.holdCount();
    }

    /** @return the remaining lease that at least a quorum of masters still have, or {@code -2} */
    @Override
    public long remainTimeToLive() {
        return queries.remainTimeToLive();
    }

    /** @return whether the lock was deleted on any master */
    @Override
    public boolean forceUnlock() {
        return queries.forceUnlock();
    }

    @Override
    public String toString() {
        return "RedLock" + name;
    }
}
