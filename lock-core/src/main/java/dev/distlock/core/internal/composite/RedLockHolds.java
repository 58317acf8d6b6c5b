package dev.distlock.core.internal.composite;

import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.acquire.CompositeLocks;
import dev.distlock.core.internal.engine.LockEngine;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The red locks held with the watchdog lease in this JVM, one {@link RedLockHold} per owner and set
 * of members, counted like a reentrant hold: every acquisition of the owner adds one, every unlock
 * takes one away, and the last unlock ends the checks. A {@code RedLock} object holds no state (a
 * new one built over the same members is the same lock), so the holds are kept here, by the
 * members' keys and servers.
 */
final class RedLockHolds {

    private static final Map<Key, RedLockHold> HOLDS = new ConcurrentHashMap<>();

    private RedLockHolds() {}

    /**
     * Records a won acquisition. One with the watchdog lease starts the checks of the hold; one
     * with an explicit lease only counts while they run (a re-entry inside a watchdog hold).
     * @param locks one member per master
     * @param name the red lock's name
     * @param leaseMillis the acquisition's lease in ms, or {@code -1} for the watchdog
     * @param ownerId the owner
     */
    static void acquired(List<RedisLock> locks, String name, long leaseMillis, long ownerId) {
        Key key = Key.of(locks, ownerId);
        if (leaseMillis != LockEngine.WATCHDOG) {
            HOLDS.computeIfPresent(key, (k, hold) -> hold.acquiredAgain() ? hold : null);
            return;
        }
        HOLDS.compute(key, (k, hold) -> {
            if (hold != null && hold.acquiredAgain()) {
                return hold;
            }
            RedLockHold started = new RedLockHold(locks, name, ownerId, ended -> HOLDS.remove(k, ended));
            started.start();
            return started;
        });
    }

    /**
     * Records an unlock, before its releases are sent: after the owner's last unlock no member is
     * taken again.
     * @param locks one member per master
     * @param ownerId the owner
     */
    static void released(List<RedisLock> locks, long ownerId) {
        HOLDS.computeIfPresent(Key.of(locks, ownerId), (k, hold) -> hold.releasedOnce() ? null : hold);
    }

    /** Which red lock and owner: the members' keys and servers, in the order given, and the owner. */
    private record Key(List<String> members, long ownerId) {

        static Key of(List<RedisLock> locks, long ownerId) {
            return new Key(locks.stream().map(CompositeLocks::sortKey).toList(), ownerId);
        }
    }
}
