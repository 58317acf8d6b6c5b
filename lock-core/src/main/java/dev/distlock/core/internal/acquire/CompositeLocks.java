package dev.distlock.core.internal.acquire;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockListener;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.Failures;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.engine.SafeLockListener;
import dev.distlock.core.internal.hold.Hold;
import dev.distlock.core.internal.layout.RedissonLayout;
import dev.distlock.core.internal.script.RenewHolds;
import dev.distlock.core.internal.script.Scripts;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What the composite locks ({@code dev.distlock.core.internal.composite}) need to know about a
 * member that only this room can see: its key and server, its lease, its owner-checked renewal
 * script, the hold its client keeps for an owner, and its listeners. Members of other
 * implementations get neutral answers.
 */
public final class CompositeLocks {

    private CompositeLocks() {}

    /**
     * Returns the failure of a composite call whose member's client was closed: like every call of a
     * closed client, it fails rather than counting the member as a master that is down.
     * @param locks the members
     * @param compositeName the composite's name, for the message
     * @return the failure, or {@code null} when every member's client is open
     */
    public static @Nullable LockException closedMember(List<RedisLock> locks, String compositeName) {
        for (RedisLock lock : locks) {
            if (lock instanceof KindHooks redisLock && redisLock.engine.isClosed()) {
                return redisLock.engine.calls().closedException(compositeName, null);
            }
        }
        return null;
    }

    /**
     * Returns the key by which members are put in canonical order: Redis key, then server.
     * @param lock a member
     * @return the sort key
     */
    public static String sortKey(RedisLock lock) {
        if (lock instanceof KindHooks redisLock) {
            return redisLock.key + "@" + redisLock.engine.connector().describe();
        }
        return lock.getName();
    }

    /**
     * Returns the lease a member gives its holds: the lease asked for, or its client's watchdog
     * timeout.
     * @param lock a member
     * @param leaseMillis lease in ms, or {@code -1} for the watchdog
     * @return lease in ms
     */
    public static long effectiveLeaseMillis(RedisLock lock, long leaseMillis) {
        if (leaseMillis != LockEngine.WATCHDOG) {
            return leaseMillis;
        }
        if (lock instanceof KindHooks redisLock) {
            return redisLock.engine.watchdogMillis();
        }
        return LockClientOptions.DEFAULT_WATCHDOG_TIMEOUT.toMillis();
    }

    /**
     * Restarts the lease of a member the owner holds, with the member's owner-checked renewal
     * script, so that a member taken early in a long acquisition is held for the whole lease from
     * now on. A member held by someone else (its hold lapsed and was taken over) is left alone: a
     * plain {@code PEXPIRE} would extend the other owner's lease. The reply is bounded by the
     * connection's command timeout.
     * @param lock a member the owner acquired
     * @param leaseMillis lease in ms, or {@code -1} for the watchdog
     * @param ownerId the owner
     * @return whether the owner still held the member (members of other kinds are trusted); fails
     *     with a {@link LockException} when Redis does not answer
     */
    public static CompletableFuture<Boolean> renewAsync(RedisLock lock, long leaseMillis, long ownerId) {
        if (!(lock instanceof KindHooks member)) {
            return CompletableFuture.completedFuture(true);
        }
        LockEngine engine = member.engine;
        try {
            engine.calls().ensureOpen(member.name);
        } catch (LockException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        long lease = leaseMillis == LockEngine.WATCHDOG ? engine.watchdogMillis() : leaseMillis;
        String field = member.ownerField(ownerId);
        CompletableFuture<List<Long>> reply = engine.calls().call(() -> new RenewHolds(
                        member.renewScript(),
                        List.of(member.key),
                        lease,
                        List.of(field),
                        readHoldTimeouts(member, field))
                .run(engine.scripts()));
        return reply.handle((renewed, failure) -> {
            if (failure != null) {
                Throwable cause = Failures.cause(failure);
                engine.calls().failIfClosed(member.name, cause);
                throw new LockException(
                        "Cannot re-expire lock '" + member.name + "' on "
                                + engine.connector().describe() + ": " + cause.getMessage(),
                        cause);
            }
            return renewed != null && !renewed.isEmpty() && renewed.get(0) != null && renewed.get(0) == 1L;
        });
    }

    /** @return the read hold timeouts a read member's renewal decides on (see {@code LeaseWatchdog}) */
    private static List<String> readHoldTimeouts(KindHooks member, String field) {
        if (!member.renewScript().equals(Scripts.RW_READ_RENEW)) {
            return List.of();
        }
        Hold hold = member.engine.holds().get(member.key, field);
        return RedissonLayout.readHoldTimeouts(member.key, field, hold == null ? 1 : hold.count());
    }

    /**
     * Forgets the owner's hold of a member in the member's client, so that its watchdog no longer
     * renews it, unless an unlock of that hold is under way.
     * @param lock a member
     * @param ownerId the owner
     * @param reportLost whether to report a forgotten hold lost to the member's listeners
     *     ({@code onLeaseLost} with the member's name), as its watchdog does when a renewal finds it gone
     * @return {@code false} when an unlock of the hold is under way (the hold is left alone), else {@code true}
     */
    public static boolean forgetHold(RedisLock lock, long ownerId, boolean reportLost) {
        if (!(lock instanceof KindHooks member)) {
            return true;
        }
        Hold hold = member.engine.holds().get(member.key, member.ownerField(ownerId));
        if (hold == null) {
            return true;
        }
        if (hold.releasing()) {
            return false;
        }
        if (member.engine.holds().remove(hold) && reportLost) {
            member.engine.leaseLost(hold);
        }
        return true;
    }

    /**
     * Returns one listener that tells every listener of the members once: their clients' listeners
     * and those of the member views, however many members share one (a listener given to every
     * client of a red lock hears an event about the red lock once, not once per master).
     * @param locks the members
     * @return the listener; it never throws
     */
    public static LockListener listenersOf(List<RedisLock> locks) {
        Set<LockListener> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<LockListener> distinct = new ArrayList<>();
        for (RedisLock lock : locks) {
            if (lock instanceof KindHooks member) {
                List<LockListener> listeners = new ArrayList<>();
                listeners.add(member.engine.listener());
                listeners.addAll(member.events().viewListeners());
                for (LockListener listener : listeners) {
                    List<LockListener> delegates =
                            listener instanceof SafeLockListener safe ? safe.delegates() : List.of(listener);
                    delegates.stream().filter(seen::add).forEach(distinct::add);
                }
            }
        }
        return SafeLockListener.of(distinct);
    }
}
