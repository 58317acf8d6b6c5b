package dev.distlock.core.internal.hold;

import dev.distlock.core.LockKind;
import dev.distlock.core.LockListener;
import dev.distlock.core.internal.script.LuaScript;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What this client knows about one owner's hold on one lock. Redis stays the source of truth;
 * this is what the watchdog renews and what diagnostics list.
 *
 * <p>Each acquisition not yet unlocked is remembered with its own lease. An unlock does not say
 * which of them it ends (tasks sharing an owner id unlock in any order), so it gives back the one
 * that expires first, and the holds that remain keep the longest lease still owed. The watchdog
 * renews the hold while at least one of them was taken with the watchdog lease, so a nested
 * watchdog acquisition does not turn an explicit lease into a renewed one for good.
 */
public final class Hold {

    /** Lease value meaning "renewed by the watchdog"; the engine's {@code WATCHDOG} is this value. */
    public static final long WATCHDOG = -1;

    private final String lockName;
    private final LockKind kind;
    private final String key;
    private final long ownerId;
    private final String ownerField;
    private final LuaScript renewScript;
    private final Instant since = Instant.now();
    /** Sized for the usual hold of one acquisition; re-entries grow it. */
    private final Deque<Grant> grants = new ArrayDeque<>(2);

    private int watchdogGrants;
    private volatile boolean releasing;
    /** Each listener once, in the order first given; replaced as a whole, so readers need no lock. */
    private volatile List<LockListener> listeners = List.of();

    Hold(String lockName, LockKind kind, String key, long ownerId, String ownerField, LuaScript renewScript) {
        this.lockName = lockName;
        this.kind = kind;
        this.key = key;
        this.ownerId = ownerId;
        this.ownerField = ownerField;
        this.renewScript = renewScript;
    }

    /**
     * Records one acquisition.
     * @param leaseMillis its lease ({@code -1} for the watchdog)
     * @param sentNanos when the attempt that Redis granted was sent ({@link System#nanoTime()}): Redis
     *     started the lease after that, so a lease computed from it never outlasts Redis' own
     * @param viewListeners the listeners of the lock view that acquired it
     */
    synchronized void acquired(long leaseMillis, long sentNanos, List<LockListener> viewListeners) {
        grants.addLast(new Grant(leaseMillis, sentNanos));
        if (leaseMillis == WATCHDOG) {
            watchdogGrants++;
        }
        if (!viewListeners.isEmpty()) {
            Set<LockListener> merged = new LinkedHashSet<>(listeners);
            merged.addAll(viewListeners);
            listeners = List.copyOf(merged);
        }
    }

    /**
     * Gives back one acquisition, whether or not Redis confirmed its release: the one an unlock set
     * out to release (see {@link #grantToGiveBack()}), even if the owner took the lock again while
     * the release was under way. After a failed unlock Redis may count one hold more than this
     * client; that hold is not renewed once none is left here, and expires with its lease.
     * @param grant from {@link #grantToGiveBack()} when the unlock started
     * @return the acquisitions left
     */
    public synchronized int released(@Nullable Object grant) {
        Grant given = grant instanceof Grant g && grants.removeLastOccurrence(g)
                ? g
                // Another unlock of the same owner gave that one back already: give back the next.
                : firstToExpire();
        if (given != null && given != grant) {
            grants.removeLastOccurrence(given);
        }
        if (given != null && given.watchdog()) {
            watchdogGrants--;
        }
        return grants.size();
    }

    /**
     * Returns the acquisition an unlock gives back: the one that expires first (watchdog leases
     * never do; among equals, the latest), so that the holds left keep the longest lease still owed.
     * @return a handle for {@link #released(Object)}, or {@code null} when none is left
     */
    public synchronized @Nullable Object grantToGiveBack() {
        return firstToExpire();
    }

    /**
     * Returns the latest acquisition: the one a give-back ends (the grant of a call that was
     * cancelled or failed as it was granted, which knows it was the last one taken).
     * @return a handle for {@link #released(Object)}, or {@code null} when none is left
     */
    public synchronized @Nullable Object latestGrant() {
        return grants.peekLast();
    }

    private @Nullable Grant firstToExpire() {
        Grant first = null;
        for (Grant grant : grants) {
            if (first == null || !first.expiresBefore(grant)) {
                first = grant;
            }
        }
        return first;
    }

    /**
     * Records that the whole hold was given a new explicit lease: every acquisition not yet unlocked
     * ends with it, and the watchdog no longer renews the hold.
     * @param leaseMillis the new lease
     * @param sentNanos when the renewal was sent ({@link System#nanoTime()}), before Redis applied it
     */
    public synchronized void leaseRenewed(long leaseMillis, long sentNanos) {
        int count = grants.size();
        grants.clear();
        for (int i = 0; i < count; i++) {
            grants.addLast(new Grant(leaseMillis, sentNanos));
        }
        watchdogGrants = 0;
    }

    /**
     * Returns the lease the lock keeps once an acquisition is unlocked and others remain:
     * the watchdog lease while one of those was taken with it, else what is left of the longest
     * explicit lease among them (at least 1 ms; it ran out already if nothing is left).
     * @param watchdogMillis the watchdog lease
     * @return lease in ms
     */
    public synchronized long leaseAfterRelease(long watchdogMillis) {
        return leaseOf(firstToExpire(), watchdogMillis);
    }

    /**
     * Returns the lease the lock keeps once the given acquisition is given back and others remain,
     * computed as {@link #leaseAfterRelease(long)} does.
     * @param grant from {@link #latestGrant()}
     * @param watchdogMillis the watchdog lease
     * @return lease in ms
     */
    public synchronized long leaseAfterGivingBack(@Nullable Object grant, long watchdogMillis) {
        return leaseOf(grant instanceof Grant g ? g : firstToExpire(), watchdogMillis);
    }

    /**
     * Returns the lease the lock keeps when a grant this hold does not record is given back (an
     * acquisition whose caller cancelled as it was granted): the lease every recorded acquisition
     * calls for, as {@link #leaseAfterRelease(long)} computes it, with none of them released.
     * @param watchdogMillis the watchdog lease
     * @return lease in ms
     */
    public synchronized long leaseAfterGiveBack(long watchdogMillis) {
        return grants.isEmpty() ? watchdogMillis : leaseOf(null, watchdogMillis);
    }

    private long leaseOf(@Nullable Grant released, long watchdogMillis) {
        int watchdogsLeft = watchdogGrants - (released != null && released.watchdog() ? 1 : 0);
        if (grants.size() - (released != null ? 1 : 0) <= 0 || watchdogsLeft > 0) {
            return watchdogMillis;
        }
        long now = System.nanoTime();
        long longest = 1;
        for (Grant grant : grants) {
            if (grant != released) {
                longest = Math.max(longest, grant.leaseMillis() - (now - grant.grantedNanos()) / 1_000_000);
            }
        }
        return longest;
    }

    /** @return lock name without prefix */
    public String lockName() {
        return lockName;
    }

    /** @return lock kind */
    public LockKind kind() {
        return kind;
    }

    /** @return Redis key of the lock */
    public String key() {
        return key;
    }

    /** @return thread id or explicit owner id */
    public long ownerId() {
        return ownerId;
    }

    /** @return owner field in the lock hash */
    public String ownerField() {
        return ownerField;
    }

    /** @return script that renews this hold */
    public LuaScript renewScript() {
        return renewScript;
    }

    /** @return when the first hold was taken */
    public Instant since() {
        return since;
    }

    /** @return local hold count */
    public synchronized int count() {
        return grants.size();
    }

    /** @return lease of the latest acquisition in ms, {@code -1} for the watchdog ({@code 0} when none is left) */
    public synchronized long leaseMillis() {
        Grant latest = grants.peekLast();
        return latest == null ? 0 : latest.leaseMillis();
    }

    /** @return whether the watchdog renews this hold: one of its acquisitions not yet unlocked took the watchdog lease */
    public synchronized boolean watchdog() {
        return watchdogGrants > 0;
    }

    /** @return the listeners of the lock views this hold was taken through (never throw) */
    public List<LockListener> listeners() {
        return listeners;
    }

    /** @return whether an unlock of this hold is in flight (renewal failures are then expected) */
    public boolean releasing() {
        return releasing;
    }

    public void releasing(boolean value) {
        this.releasing = value;
    }

    /** One acquisition: its lease ({@code -1} for the watchdog) and when it was granted ({@link System#nanoTime()}). */
    private record Grant(long leaseMillis, long grantedNanos) {

        boolean watchdog() {
            return leaseMillis == WATCHDOG;
        }

        /** @return whether this grant's lease ends before the other's (a watchdog lease never ends) */
        boolean expiresBefore(Grant other) {
            if (watchdog()) {
                return false;
            }
            return other.watchdog()
                    || grantedNanos + leaseMillis * 1_000_000 - (other.grantedNanos + other.leaseMillis * 1_000_000)
                            < 0;
        }
    }
}
