package dev.distlock.spring.internal;

import dev.distlock.core.HeldLock;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockException;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockKind;
import dev.distlock.core.RedisLock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code distlock} Actuator endpoint, read-only by default: the locks this instance holds
 * (red locks included) and waits for, and one lock's state in Redis. Force-unlock is a delete
 * operation, available only when write access is granted
 * ({@code management.endpoint.distlock.access=unrestricted}). Both read and delete only keys that
 * are Distlock/Redisson locks, and answer with {@code state = unknown} and an {@code error} while
 * Redis is unreachable.
 */
@Endpoint(id = "distlock", defaultAccess = Access.READ_ONLY)
public class DistlockEndpoint {

    private static final Logger logger = LoggerFactory.getLogger(DistlockEndpoint.class);

    private final LockClient client;
    private final List<LockClient> redLockClients;
    private final HoldIndex holds;
    private final @Nullable LockEventLog events;

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
    }

    /**
     * Lists held locks and waiters.
     * @return the report, without events
     */
    public LocksReport locks() {
        return locks(null);
    }

    /**
     * Lists held locks and waiters and, when asked with {@code ?eventsAfter=<sequence>}, the recent
     * lock events newer than that sequence ({@code 0} for all).
     * @param eventsAfter sequence number of the last event already seen, or {@code null} for no events
     * @return the report
     */
    @ReadOperation
    public LocksReport locks(@Nullable Long eventsAfter) {
        List<HeldLockReport> held = new ArrayList<>();
        client.heldLocks().forEach(h -> held.add(report(client, h, null)));
        for (int i = 0; i < redLockClients.size(); i++) {
            LockClient node = redLockClients.get(i);
            int index = i;
            node.heldLocks().forEach(h -> held.add(report(node, h, index)));
        }
        List<WaiterReport> waiters = holds.waiters().stream()
                .map(w -> new WaiterReport(w.lockName(), w.type().kind().kindName(), w.thread(), w.since()))
                .toList();
        return new LocksReport(
                client.getId(), held, waiters, eventsAfter != null ? LockEventsReport.of(events, eventsAfter) : null);
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
        client.heldLocks().stream().filter(h -> h.name().equals(name)).forEach(h -> local.add(report(client, h, null)));
        List<NodeState> nodes = new ArrayList<>();
        for (int i = 0; i < redLockClients.size(); i++) {
            LockClient node = redLockClients.get(i);
            int index = i;
            node.heldLocks().stream()
                    .filter(h -> h.name().equals(name))
                    .forEach(h -> local.add(report(node, h, index)));
            nodes.add(nodeState(i, node, name));
        }
        NodeState main = nodeState(null, client, name);
        return new LockState(
                name,
                key(name),
                main.state(),
                main.kind(),
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
        String name = lockName(selector);
        List<String> notLocks = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        String who = caller.getPrincipal() != null
                ? "'" + caller.getPrincipal().getName() + "'"
                : "an unauthenticated caller";
        boolean unlocked = forceUnlock(client, "redis", name, who, notLocks, errors);
        for (int i = 0; i < redLockClients.size(); i++) {
            unlocked |= forceUnlock(redLockClients.get(i), "redlock[" + i + "]", name, who, notLocks, errors);
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

    private boolean forceUnlock(
            LockClient target, String label, String name, String who, List<String> notLocks, List<String> errors) {
        try {
            LockKeyInspector.Inspection inspection = LockKeyInspector.inspect(target, name);
            if (inspection.kind() == LockKeyInspector.Kind.NOT_A_LOCK) {
                notLocks.add(label + ": not a lock, left untouched (" + inspection.reason() + ")");
                return false;
            }
            RedisLock lock = LockKeyInspector.releasable(target, name, inspection);
            if (lock == null) {
                return false;
            }
            // Told before the deletion, which makes this instance's holders hear their loss.
            logger.warn(
                    "Force-unlocking lock '{}' (key '{}') on {} at the request of {}; holders: {}",
                    name,
                    target.getOptions().keyPrefix() + name,
                    label,
                    who,
                    describeHolders(target, inspection.info()));
            return lock.forceUnlock();
        } catch (LockException ex) {
            errors.add(label + ": " + ex.getMessage());
            return false;
        }
    }

    /** Names each holder in Redis, with the method and thread behind it when this instance holds it. */
    private String describeHolders(LockClient target, @Nullable LockInfo info) {
        if (info == null || info.holders().isEmpty()) {
            return "none";
        }
        List<String> described = new ArrayList<>();
        for (String field : info.holders().keySet()) {
            String[] parts = field.split(":");
            String mine = target.getId().equals(parts[0]) ? localHold(info.name(), Long.parseLong(parts[1])) : null;
            described.add(field + (mine != null ? " (" + mine + ")" : " (another client)"));
        }
        return String.join(", ", described);
    }

    private @Nullable String localHold(String name, long ownerId) {
        Hold hold = holds.find(name, ownerId);
        if (hold == null) {
            return "this instance";
        }
        String thread = hold.threadName();
        return "this instance: " + hold.request.description() + (thread != null ? " on thread '" + thread + "'" : "");
    }

    private static NodeState nodeState(@Nullable Integer node, LockClient target, String name) {
        try {
            LockKeyInspector.Inspection inspection = LockKeyInspector.inspect(target, name);
            LockInfo info = inspection.info();
            if (info == null) {
                return new NodeState(node, "not-a-lock", null, null, null, null, Map.of(), 0, inspection.reason());
            }
            String kind =
                    switch (inspection.kind()) {
                        case REENTRANT -> "reentrant";
                        case FAIR -> "fair";
                        case READ_WRITE -> "read-write";
                        default -> null;
                    };
            return new NodeState(
                    node,
                    info.locked() ? "locked" : "unlocked",
                    kind,
                    info.locked(),
                    info.remainingTtlMillis() >= 0 ? info.remainingTtlMillis() : null,
                    info.mode(),
                    info.holders(),
                    info.queueLength(),
                    null);
        } catch (LockException ex) {
            return new NodeState(node, "unknown", null, null, null, null, Map.of(), 0, ex.getMessage());
        }
    }

    private HeldLockReport report(LockClient owner, HeldLock held, @Nullable Integer redLockNode) {
        Hold hold = holds.find(held.name(), held.ownerId());
        Long ttl = null;
        String error = null;
        try {
            long remaining = owner.getLock(held.name()).remainTimeToLive();
            ttl = remaining >= 0 ? remaining : null;
        } catch (LockException ex) {
            error = ex.getMessage();
        }
        String type = (redLockNode != null ? LockKind.RED : held.kind()).kindName();
        return new HeldLockReport(
                held.name(),
                owner.getOptions().keyPrefix() + held.name(),
                type,
                redLockNode,
                hold != null ? hold.request.template() : null,
                hold != null ? hold.threadName() : null,
                held.ownerId(),
                held.holdCount(),
                held.since(),
                ttl,
                held.watchdog(),
                hold != null ? hold.request.description() : null,
                error);
    }

    /**
     * Locks held and waited for by this instance.
     * @param clientId the client's id
     * @param held holds, red-lock holds once per node
     * @param waiters waiters
     * @param events recent lock events, only when asked for with {@code eventsAfter}
     */
    public record LocksReport(
            String clientId, List<HeldLockReport> held, List<WaiterReport> waiters, @Nullable LockEventsReport events)
            implements OperationResponseBody {

        /**
         * Creates a report without events.
         * @param clientId the client's id
         * @param held holds
         * @param waiters waiters
         */
        public LocksReport(String clientId, List<HeldLockReport> held, List<WaiterReport> waiters) {
            this(clientId, held, waiters, null);
        }
    }

    /**
     * One hold.
     * @param name lock name
     * @param key the lock's Redis key (key prefix and name)
     * @param type lock kind ({@code red} for a red lock's hold on one node)
     * @param redLockNode index of the red-lock node, else {@code null}
     * @param annotationName the annotation's name, or the template call's name, if known
     * @param ownerThread holding thread, {@code null} for asynchronous holds
     * @param ownerId owner id
     * @param holdCount reentrant count
     * @param heldSince when taken
     * @param remainingTtlMillis lease left in Redis, {@code null} when unknown or gone
     * @param watchdog whether the watchdog renews it
     * @param method guarded method, if known
     * @param error why the lease left could not be read, else {@code null}
     */
    public record HeldLockReport(
            String name,
            String key,
            String type,
            @Nullable Integer redLockNode,
            @Nullable String annotationName,
            @Nullable String ownerThread,
            long ownerId,
            int holdCount,
            Instant heldSince,
            @Nullable Long remainingTtlMillis,
            boolean watchdog,
            @Nullable String method,
            @Nullable String error) {}

    /**
     * One waiter.
     * @param name lock name(s)
     * @param type lock kind
     * @param thread waiting thread
     * @param waitingSince when it began
     */
    public record WaiterReport(String name, String type, @Nullable String thread, Instant waitingSince) {}

    /**
     * A lock's state in Redis.
     * @param name lock name
     * @param key the lock's Redis key (key prefix and name)
     * @param state {@code locked}, {@code unlocked}, {@code not-a-lock} or {@code unknown} (Redis unreachable)
     * @param kind {@code reentrant}, {@code fair} or {@code read-write} when locked or queued, else {@code null}
     * @param locked whether anyone holds it, {@code null} when unknown or not a lock
     * @param remainingTtlMillis lease left, {@code null} when not locked or unknown
     * @param mode {@code read}/{@code write} for a read-write lock, else {@code null}
     * @param holders every holder in Redis (owner field to hold count), whichever instance it is
     * @param queueLength fair-lock waiters queued in Redis
     * @param error why the state is unknown or not a lock, else {@code null}
     * @param localHolds holds of this instance, red-lock holds included
     * @param redLockNodes the lock's state on each red-lock node
     */
    public record LockState(
            String name,
            String key,
            String state,
            @Nullable String kind,
            @Nullable Boolean locked,
            @Nullable Long remainingTtlMillis,
            @Nullable String mode,
            Map<String, Long> holders,
            long queueLength,
            @Nullable String error,
            List<HeldLockReport> localHolds,
            List<NodeState> redLockNodes)
            implements OperationResponseBody {}

    /**
     * A lock's state on one Redis.
     * @param node index of the red-lock node, {@code null} for the main Redis
     * @param state {@code locked}, {@code unlocked}, {@code not-a-lock} or {@code unknown}
     * @param kind lock kind, if a lock
     * @param locked whether held, {@code null} when unknown or not a lock
     * @param remainingTtlMillis lease left, if locked
     * @param mode read-write mode, if any
     * @param holders holders
     * @param queueLength fair-lock waiters
     * @param error why unknown or not a lock
     */
    public record NodeState(
            @Nullable Integer node,
            String state,
            @Nullable String kind,
            @Nullable Boolean locked,
            @Nullable Long remainingTtlMillis,
            @Nullable String mode,
            Map<String, Long> holders,
            long queueLength,
            @Nullable String error) {}

    /**
     * Outcome of a force-unlock.
     * @param name lock name
     * @param key the lock's Redis key (key prefix and name)
     * @param unlocked whether a lock was deleted on any Redis
     * @param notLocks Redis servers where the key is not a lock and was left untouched
     * @param errors Redis servers that could not be reached
     */
    public record ForceUnlockResult(
            String name, String key, boolean unlocked, List<String> notLocks, List<String> errors)
            implements OperationResponseBody {}
}
