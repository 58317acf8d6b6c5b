package dev.distlock.core;

import dev.distlock.core.internal.composite.BatchedMultiAcquisition;
import dev.distlock.core.internal.composite.Members;
import dev.distlock.core.internal.composite.MultiAcquisition;
import dev.distlock.core.internal.composite.Releases;
import dev.distlock.core.internal.kind.SameServerMembers;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A lock made of several {@link RedisLock}s, held all together or not at all (Redisson's
 * {@code RedissonMultiLock}). The members may come from different {@link LockClient}s, so one
 * multi lock can span several Redis servers.
 *
 * <p><b>Acquiring, one script per server.</b> When every member is a plain lock from
 * {@link LockClient#getLock} (named once), the members that one client keeps on one server (on a
 * Cluster, in one hash slot) are taken by one script, atomically: every one of them, or none, with
 * re-entry counted per member. Members on several servers or slots are tried with one script each,
 * all at once; if any is refused, the others are released at once, so a waiting caller holds no
 * member and callers never deadlock, whatever order they name the members in. A refused caller
 * listens on the channel of the member that refused it (as that member's own waiters do) and tries
 * again when woken or when that member's lease ends, within its wait. Every member keeps
 * Redisson's layout, so a Redisson {@code RLock} on a member excludes the multi lock and is
 * excluded by it. The members are released one script per server too. An attempt whose reply was
 * lost is recorded as each member's grant, so the clean-up after it releases only what it took.
 *
 * <p><b>Acquiring, member by member.</b> Members of other kinds (fair, fenced, read and write
 * locks), a lock named twice, or a client with the replica-sync guard on make the multi lock take
 * its members one after the other, each with what is left of the
 * caller's wait (without a wait bound, of a round of 1.5 s per member). If one cannot be taken,
 * every member taken so far is released and the round starts again from the first member, until
 * the wait is spent. Members are taken in a canonical order, not in the order given to
 * {@link #of(RedisLock...)}: by Redis key (prefix and name, compared as strings), and only for
 * members with the same key, by their client's server as configured (the URI as written, so a
 * host name and its IP address count as different; the Sentinel master and sentinels; the cluster
 * seeds). Two callers that name the same locks in different orders therefore never hold one each
 * while waiting for the other, as long as members with equal keys are configured alike in every
 * process; otherwise they can only delay each other until a round ends.
 *
 * <p><b>Failure.</b> A failed attempt releases one hold of every member it took, so holds the owner
 * had before (re-entry) remain. A member whose release fails (its server is down), or whose
 * acquisition failed without a reply (the script may have run), is left to expire with its lease:
 * unless the owner held it before, the watchdog no longer renews it.
 *
 * <p><b>Leases.</b> The lease (or the watchdog, for {@code -1}) applies to every member. Taken one
 * script per server, every member's lease starts with that script. Taken member by member, once the
 * last member is taken, the leases of the members taken before it are restarted, each by an
 * owner-checked script, so that when an acquisition returns {@code true} every member is held by
 * the owner with (at least) the whole lease left. If an earlier member's lease lapsed while a later
 * one was awaited (so that it is no longer held by the owner, and may be held by someone else),
 * everything taken is released and the round starts again within the wait.
 *
 * <p><b>Ownership.</b> One owner id spans all members: the calling thread's id for the
 * thread-owner methods, or an explicit id from {@link RedisLock#newOwnerId()}.
 *
 * <p><b>Releasing.</b> {@link #unlock()} releases every member, even when some fail, and then
 * throws the first failure with the others attached as suppressed exceptions.
 *
 * <p><b>Asynchronous use.</b> {@link #tryLockAsync}, {@link #lockAsync} and {@link #unlockAsync}
 * are chains of asynchronous calls, so a waiting acquisition holds no thread; the blocking
 * methods wait for those same stages. Cancelling a waiting acquisition ends its wait and releases
 * the members already taken, or taken by a call that was answered after the cancel.
 */
public final class MultiLock extends CompositeRedisLock {

    private final List<RedisLock> locks;
    private final List<RedisLock> ordered;
    private final String name;
    /** The members by the script that takes them, one per server; {@code null} when taken one by one. */
    private final @Nullable List<SameServerMembers> groups;

    private MultiLock(List<RedisLock> locks) {
        this.locks = locks;
        this.ordered = Members.canonicalOrder(locks);
        this.name = Members.joinedName(locks);
        this.groups = SameServerMembers.group(ordered);
    }

    /**
     * Creates a multi lock over the given locks.
     * @param locks the members, at least one; they may come from different clients
     * @return the multi lock
     */
    public static MultiLock of(RedisLock... locks) {
        return new MultiLock(Members.require("MultiLock", locks));
    }

    /**
     * Returns the members in the order they were given.
     * @return the members
     */
    public List<RedisLock> getLocks() {
        return locks;
    }

    /**
     * Returns a view whose members report to the given listener too ({@link RedisLock#withListener}
     * on each member), so that events name the member concerned.
     * @param listener the listener
     * @return a view of this lock
     */
    @Override
    public MultiLock withListener(LockListener listener) {
        Objects.requireNonNull(listener, "'listener' must not be null");
        return new MultiLock(
                locks.stream().map(member -> member.withListener(listener)).toList());
    }

    /** @return the members' names, e.g. {@code [a, b]} */
    @Override
    public String getName() {
        return name;
    }

    @Override
    CompletableFuture<Boolean> acquireAsync(long waitMillis, long leaseMillis, long ownerId) {
        List<SameServerMembers> batches = groups;
        if (batches != null) {
            return BatchedMultiAcquisition.start(batches, waitMillis, leaseMillis, ownerId);
        }
        return MultiAcquisition.start(ordered, waitMillis, leaseMillis, ownerId);
    }

    @Override
    CompletableFuture<Void> releaseAsync(long ownerId) {
        List<SameServerMembers> batches = groups;
        return batches != null ? Releases.batched(batches, ownerId) : Releases.multi(ordered, ownerId);
    }

    /** @return whether any member is held by anyone */
    @Override
    public boolean isLocked() {
        return locks.stream().anyMatch(RedisLock::isLocked);
    }

    /** @return whether the owner holds every member */
    @Override
    public boolean isHeldBy(long ownerId) {
        return locks.stream().allMatch(lock -> lock.isHeldBy(ownerId));
    }

    /** @return the smallest hold count of the calling thread over the members */
    @Override
    public int getHoldCount() {
        return locks.stream().mapToInt(RedisLock::getHoldCount).min().orElse(0);
    }

    /** @return the shortest remaining lease over the members; {@code -2} if any member is not locked */
    @Override
    public long remainTimeToLive() {
        long shortest = -1;
        for (RedisLock lock : locks) {
            long ttl = lock.remainTimeToLive();
            if (ttl == -2) {
                return -2;
            }
            if (ttl >= 0 && (shortest < 0 || ttl < shortest)) {
                shortest = ttl;
            }
        }
        return shortest;
    }

    /** @return whether any member was deleted */
    @Override
    public boolean forceUnlock() {
        boolean deleted = false;
        for (RedisLock lock : ordered) {
            deleted |= lock.forceUnlock();
        }
        return deleted;
    }

    @Override
    public String toString() {
        return "MultiLock" + name;
    }
}
