package dev.distlock.spring.internal;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import dev.distlock.core.HeldLock;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockInfo;
import dev.distlock.core.RedisLock;

/**
 * The {@code distlock} Actuator endpoint: the locks this instance holds and waits for, a lock's
 * state in Redis, and (only when {@code distlock.endpoint.force-unlock-enabled=true}) force-unlock.
 */
@Endpoint(id = "distlock")
public class DistlockEndpoint {

    private final LockClient client;
    private final ActiveHolds holds;
    private final boolean forceUnlockEnabled;

    /**
     * Creates the endpoint.
     * @param client the lock client
     * @param holds holds and waiters of the annotation and template
     * @param forceUnlockEnabled whether force-unlock is allowed
     */
    public DistlockEndpoint(LockClient client, ActiveHolds holds, boolean forceUnlockEnabled) {
        this.client = client;
        this.holds = holds;
        this.forceUnlockEnabled = forceUnlockEnabled;
    }

    /**
     * Lists held locks and waiters.
     * @return the report
     */
    @ReadOperation
    public LocksReport locks() {
        List<HeldLockReport> held = client.heldLocks().stream().map(this::report).toList();
        List<WaiterReport> waiters = holds.waiters().stream()
                .map(w -> new WaiterReport(w.lockName(), w.type().name().toLowerCase(java.util.Locale.ROOT), w.thread(), w.since()))
                .toList();
        return new LocksReport(client.getId(), held, waiters);
    }

    /**
     * Reads one lock's state from Redis.
     * @param name lock name
     * @return the state
     */
    @ReadOperation
    public LockState lock(@Selector String name) {
        LockInfo info = client.inspect(name);
        List<HeldLockReport> local = client.heldLocks().stream().filter(h -> h.name().equals(name)).map(this::report).toList();
        return new LockState(name, info.locked(), info.remainingTtlMillis() >= 0 ? info.remainingTtlMillis() : null,
                info.mode(), info.holders(), info.queueLength(), local);
    }

    /**
     * Deletes a lock whoever holds it. Disabled unless {@code distlock.endpoint.force-unlock-enabled=true}.
     * @param name lock name
     * @return what happened
     */
    @WriteOperation
    public Map<String, Object> forceUnlock(@Selector String name) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("name", name);
        if (!forceUnlockEnabled) {
            result.put("unlocked", false);
            result.put("reason", "force-unlock is disabled; set distlock.endpoint.force-unlock-enabled=true");
            return result;
        }
        result.put("unlocked", client.getLock(name).forceUnlock());
        return result;
    }

    private HeldLockReport report(HeldLock held) {
        ActiveHolds.Entry entry = holds.find(held.name(), held.ownerId());
        long ttl = client.getLock(held.name()).remainTimeToLive();
        return new HeldLockReport(held.name(), held.kind(), entry != null ? entry.template() : null,
                entry != null ? entry.threadName() : null, held.ownerId(), held.holdCount(), held.since(),
                ttl >= 0 ? ttl : null, held.watchdog(), entry != null ? entry.description() : null);
    }

    /**
     * Locks held and waited for by this instance.
     * @param clientId the client's id
     * @param held holds
     * @param waiters waiters
     */
    public record LocksReport(String clientId, List<HeldLockReport> held, List<WaiterReport> waiters) {
    }

    /**
     * One hold.
     * @param name lock name
     * @param type lock kind
     * @param template annotation or template name, if known
     * @param ownerThread holding thread, {@code null} for asynchronous holds
     * @param ownerId owner id
     * @param holdCount reentrant count
     * @param heldSince when taken
     * @param remainingTtlMillis lease left in Redis
     * @param watchdog whether the watchdog renews it
     * @param method guarded method, if known
     */
    public record HeldLockReport(String name, String type, @Nullable String template, @Nullable String ownerThread,
            long ownerId, int holdCount, Instant heldSince, @Nullable Long remainingTtlMillis, boolean watchdog,
            @Nullable String method) {
    }

    /**
     * One waiter.
     * @param name lock name(s)
     * @param type lock kind
     * @param thread waiting thread
     * @param waitingSince when it began
     */
    public record WaiterReport(String name, String type, @Nullable String thread, Instant waitingSince) {
    }

    /**
     * A lock's state in Redis.
     * @param name lock name
     * @param locked whether anyone holds it
     * @param remainingTtlMillis lease left, {@code null} when not locked
     * @param mode {@code read}/{@code write} for a read-write lock, else {@code null}
     * @param holders every holder in Redis (owner field to hold count), whichever instance it is
     * @param queueLength fair-lock waiters queued in Redis
     * @param localHolds holds of this instance
     */
    public record LockState(String name, boolean locked, @Nullable Long remainingTtlMillis, @Nullable String mode,
            Map<String, Long> holders, long queueLength, List<HeldLockReport> localHolds) {
    }

}
