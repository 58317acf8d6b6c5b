package dev.distlock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

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
 * <p><b>Acquiring.</b> One round asks every master in turn, each with a wait of
 * {@code remaining wait / N}. The round succeeds when at least {@code N/2+1} masters granted the
 * lock and the validity left, {@code lease - elapsed - drift}, is still positive, where the
 * clock-drift allowance is {@code 1% of the lease + 2 ms} (the factor of Redis' reference
 * description). Otherwise the lock is released on every master, including those that timed out or
 * failed (their grant may have happened without the reply arriving), and a new round starts after a
 * short random pause, until the wait is spent. With the watchdog lease ({@code -1}) the lease is
 * the members' watchdog timeout and every member keeps renewing its own hold.
 *
 * <p><b>Releasing.</b> {@link #unlock()} releases on every master; masters that are down are
 * skipped (their hold expires with its lease). It fails only when no master released it: with an
 * {@link IllegalMonitorStateException} when the reachable masters do not hold it, else with the
 * failures of the unreachable ones.
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

    /** Per-master wait of one round when the caller waits forever. */
    private static final long FOREVER_NODE_WAIT_MILLIS = 1500;

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









    @Override
    boolean acquire(long waitMillis, long leaseMillis, long ownerId) throws InterruptedException {
        long deadline = waitMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        while (true) {
            long nodeWait = deadline == Long.MAX_VALUE ? FOREVER_NODE_WAIT_MILLIS
                    : Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) / locks.size();
            if (round(nodeWait, leaseMillis, ownerId)) {
                return true;
            }
            if (System.nanoTime() >= deadline) {
                return false;
            }
            // Redlock's random retry delay, so that competing clients do not split the votes again.
            CompositeLocks.backOff(20, 120, deadline);
        }
    }

    private boolean round(long nodeWaitMillis, long leaseMillis, long ownerId) throws InterruptedException {
        long start = System.nanoTime();
        long lease = Long.MAX_VALUE;
        int granted = 0;
        int asked = 0;
        for (int i = 0; i < locks.size(); i++) {
            RedisLock lock = locks.get(i);
            asked++;
            lease = Math.min(lease, CompositeLocks.effectiveLeaseMillis(lock, leaseMillis));
            try {
                if (lock.tryLock(nodeWaitMillis, leaseMillis, TimeUnit.MILLISECONDS, ownerId)) {
                    granted++;
                }
            }
            catch (InterruptedException ex) {
                CompositeLocks.releaseQuietly(locks.subList(0, asked), ownerId);
                throw ex;
            }
            catch (RuntimeException ex) {
                log.debug("Red lock {}: master {} of {} failed", name, i + 1, locks.size(), ex);
            }
            if (granted + (locks.size() - i - 1) < quorum) {
                break;
            }
        }
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        long validity = lease - elapsed - driftAllowanceMillis(lease);
        if (granted >= quorum && validity > 0) {
            return true;
        }
        log.debug("Red lock {}: {} of {} masters granted (quorum {}), validity {} ms; releasing everywhere", name,
                granted, locks.size(), quorum, validity);
        // Masters never asked (the quorum was already out of reach) are left alone: releasing there
        // could only undo an earlier, re-entered hold of the same owner.
        CompositeLocks.releaseQuietly(locks.subList(0, asked), ownerId);
        return false;
    }


    @Override
    public void unlock(long ownerId) {
        int released = 0;
        int notHeld = 0;
        List<RuntimeException> failures = new ArrayList<>();
        for (RedisLock lock : locks) {
            try {
                lock.unlock(ownerId);
                released++;
            }
            catch (IllegalMonitorStateException ex) {
                notHeld++;
            }
            catch (RuntimeException ex) {
                failures.add(ex);
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
        return (int) quorumValue(lock -> lock.getHoldCount(), 0);
    }

    /** @return the remaining lease that at least a quorum of masters still have, or {@code -2} */
    @Override
    public long remainTimeToLive() {
        return quorumValue(RedisLock::remainTimeToLive, -2);
    }

    /** @return whether the lock was deleted on any master */
    @Override
    public boolean forceUnlock() {
        boolean deleted = false;
        for (RedisLock lock : locks) {
            try {
                deleted |= lock.forceUnlock();
            }
            catch (RuntimeException ex) {
                log.debug("Red lock {}: force-unlock failed on one master", name, ex);
            }
        }
        return deleted;
    }

    private int count(java.util.function.Predicate<RedisLock> test) {
        int count = 0;
        for (RedisLock lock : locks) {
            try {
                if (test.test(lock)) {
                    count++;
                }
            }
            catch (RuntimeException ex) {
                // A master that is down does not vote.
            }
        }
        return count;
    }

    private long quorumValue(java.util.function.ToLongFunction<RedisLock> value, long absent) {
        List<Long> values = new ArrayList<>();
        for (RedisLock lock : locks) {
            try {
                values.add(value.applyAsLong(lock));
            }
            catch (RuntimeException ex) {
                values.add(absent);
            }
        }
        values.sort(java.util.Comparator.reverseOrder());
        return values.get(quorum - 1);
    }

    @Override
    public String toString() {
        return "RedLock" + name;
    }
}
