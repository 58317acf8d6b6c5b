package dev.distlock.spring.internal.actuator;

import dev.distlock.core.LockClient;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.EvictionPolicyReport;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.ForceUnlockResult;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.HeldLockReport;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.LockState;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.LocksReport;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.NodeState;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.WaiterReport;
import dev.distlock.spring.internal.hold.HoldIndex;
import dev.distlock.spring.internal.observation.LockEventLog;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code distlock} Actuator endpoint, read-only by default: the locks this instance holds
 * (red locks, and Spring Integration registry locks in {@code RedisLockRegistry}'s layout, included)
 * and waits for, the eviction policy of each server that holds them, and one
 * lock's state in Redis. Force-unlock is a delete
 * operation, available only when write access is granted
 * ({@code management.endpoint.distlock.access=unrestricted}). Both read and delete only keys that
 * are Distlock/Redisson locks, and answer with {@code state = unknown} and an {@code error} while
 * Redis is unreachable.
 */
@Endpoint(id = "distlock", defaultAccess = Access.READ_ONLY)
public class DistlockEndpoint {

    private final LockClient client;
    private final List<LockClient> redLockClients;
    private final HoldIndex holds;
    private final @Nullable LockEventLog events;
    private final LockStateReader reports;
    private final ForceUnlocker unlocker;

    /**
     * Creates the endpoint without an event log.
     * @param client the lock client
     * @param redLockClients clients of the red-lock nodes
     * @param holds holds and waiters of the annotation and template
     */
    public DistlockEndpoint(LockClient client, List<LockClient> redLockClients, HoldIndex holds) {
        this(client, redLockClients, holds, null);
    }

    /**
     * Creates the endpoint.
     * @param client the lock client
     * @param redLockClients clients of the red-lock nodes
     * @param holds holds and waiters of the annotation and template
     * @param events recent lock events, {@code null} when not recorded
     */
    public DistlockEndpoint(
            LockClient client, List<LockClient> redLockClients, HoldIndex holds, @Nullable LockEventLog events) {
        this.client = client;
        this.redLockClients = List.copyOf(redLockClients);
        this.holds = holds;
        this.events = events;
        this.reports = new LockStateReader(holds);
        this.unlocker = new ForceUnlocker(holds);
    }

    /**
     * Lists held locks and waiters.
     * @return the report, without events
     */
    public LocksReport locks() {
        return locks(null);
    }

    /**
     * Answers {@code GET /actuator/distlock}: one lock's state when asked with {@code ?name=<name>},
     * else the list of {@link #locks(Long)}. The parameter reaches every name, those that no path
     * segment can carry included ({@code export:/reports/2026-11.csv}: servlet containers refuse an
     * encoded slash in a path).
     * @param eventsAfter sequence number of the last event already seen, or {@code null} for no events
     * @param name a lock name or Redis key, as for {@link #lock(String)}, or {@code null} for the list
     * @return a {@link LockState} or a {@link LocksReport}
     */
    @ReadOperation
    public Object read(@Nullable Long eventsAfter, @Nullable String name) {
        return name != null ? lock(name) : locks(eventsAfter);
    }

    /**
     * Lists held locks and waiters and, when asked with {@code ?eventsAfter=<sequence>}, the recent
     * lock events newer than that sequence ({@code 0} for all).
     * @param eventsAfter sequence number of the last event already seen, or {@code null} for no events
     * @return the report
     */
    public LocksReport locks(@Nullable Long eventsAfter) {
        List<HeldLockReport> held = new ArrayList<>();
        client.heldLocks().forEach(h -> held.add(reports.report(client, h, null)));
        for (int i = 0; i < redLockClients.size(); i++) {
            LockClient node = redLockClients.get(i);
            int index = i;
            node.heldLocks().forEach(h -> held.add(reports.report(node, h, index)));
        }
        holds.stringKeyHolds().forEach(h -> held.add(LockStateReader.report(h)));
        List<WaiterReport> waiters = holds.waiters().stream()
                .map(w -> new WaiterReport(w.lockName(), w.type().kind().kindName(), w.thread(), w.since()))
                .toList();
        List<EvictionPolicyReport> evictionPolicies = new ArrayList<>();
        client.evictionPolicies().forEach(p -> evictionPolicies.add(EvictionPolicyDetails.report(p, null)));
        for (int i = 0; i < redLockClients.size(); i++) {
            int index = i;
            redLockClients
                    .get(i)
                    .evictionPolicies()
                    .forEach(p -> evictionPolicies.add(EvictionPolicyDetails.report(p, index)));
        }
        return new LocksReport(
                client.getId(),
                held,
                waiters,
                eventsAfter != null ? LockEventsReport.of(events, eventsAfter) : null,
                evictionPolicies,
                SemaphoreReports.of(client, holds.permitHolds()));
    }

    /**
     * Reads one lock's state from Redis, and from each red-lock node.
     * @param selector lock name, or its Redis key (the name with the key prefix)
     * @return the state
     */
    @ReadOperation
    public LockState lock(@Selector String selector) {
        String name = lockName(selector);
        List<HeldLockReport> local = new ArrayList<>();
        client.heldLocks().stream()
                .filter(h -> h.name().equals(name))
                .forEach(h -> local.add(reports.report(client, h, null)));
        holds.stringKeyHolds().stream()
                .filter(h -> h.name().equals(name) || h.key().equals(selector))
                .forEach(h -> local.add(LockStateReader.report(h)));
        List<NodeState> nodes = new ArrayList<>();
        for (int i = 0; i < redLockClients.size(); i++) {
            LockClient node = redLockClients.get(i);
            int index = i;
            node.heldLocks().stream()
                    .filter(h -> h.name().equals(name))
                    .forEach(h -> local.add(reports.report(node, h, index)));
            nodes.add(LockStateReader.nodeState(i, node, name));
        }
        NodeState main = LockStateReader.nodeState(null, client, name);
        return new LockState(
                name,
                key(name),
                main.state(),
                kind(main, local),
                main.locked(),
                main.remainingTtlMillis(),
                main.mode(),
                main.holders(),
                main.queueLength(),
                main.error(),
                local,
                nodes);
    }

    /**
     * A fenced lock is laid out as a reentrant one, so Redis alone cannot tell them apart: a hold of
     * this instance names the kind it was taken as, the one the list of held locks shows.
     */
    private static @Nullable String kind(NodeState main, List<HeldLockReport> local) {
        if ("reentrant".equals(main.kind())
                && local.stream().anyMatch(h -> h.redLockNode() == null && "fenced".equals(h.type()))) {
            return "fenced";
        }
        return main.kind();
    }

    /**
     * Deletes a lock whoever holds it, through its kind's own release so that its waiters are woken,
     * on the main Redis and on every red-lock node. A key that is not a lock is left untouched.
     * Available only with {@code management.endpoint.distlock.access=unrestricted}. Each deletion is
     * logged at WARN with the caller, the lock and the holders it took the lock from; a holder learns
     * it as a lost lease (this instance's at once, another instance's at its next renewal or release).
     * @param selector lock name, or its Redis key (the name with the key prefix)
     * @param caller who asks, as the web layer knows it
     * @return what happened
     */
    @DeleteOperation
    public ForceUnlockResult forceUnlock(@Selector String selector, SecurityContext caller) {
        return forceUnlockNamed(selector, caller);
    }

    /**
     * Answers {@code DELETE /actuator/distlock?name=<name>}: {@link #forceUnlock(String, SecurityContext)}
     * for a name that no path segment can carry.
     * @param name lock name, or its Redis key
     * @param caller who asks, as the web layer knows it
     * @return what happened
     */
    @DeleteOperation
    public ForceUnlockResult forceUnlockByName(String name, SecurityContext caller) {
        return forceUnlockNamed(name, caller);
    }

    private ForceUnlockResult forceUnlockNamed(String selector, SecurityContext caller) {
        String name = lockName(selector);
        List<String> notLocks = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        String who = caller.getPrincipal() != null
                ? "'" + caller.getPrincipal().getName() + "'"
                : "an unauthenticated caller";
        boolean unlocked = unlocker.forceUnlock(client, "redis", name, who, notLocks, errors);
        for (int i = 0; i < redLockClients.size(); i++) {
            unlocked |= unlocker.forceUnlock(redLockClients.get(i), "redlock[" + i + "]", name, who, notLocks, errors);
        }
        return new ForceUnlockResult(name, key(name), unlocked, notLocks, errors);
    }

    /**
     * The lock name a selector means: a selector that starts with the key prefix is a Redis key, as
     * an operator copies it from {@code redis-cli} or a log line, and names the lock after the
     * prefix. A lock whose name itself starts with the prefix is reached through its full key.
     */
    private String lockName(String selector) {
        String prefix = client.getOptions().keyPrefix();
        return !prefix.isEmpty() && selector.startsWith(prefix) && selector.length() > prefix.length()
                ? selector.substring(prefix.length())
                : selector;
    }

    private String key(String name) {
        return client.getOptions().keyPrefix() + name;
    }
}
