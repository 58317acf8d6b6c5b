package dev.distlock.spring.internal.actuator;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The replies of the {@code distlock} endpoint, as their JSON shows them; docs/spring-boot.md has
 * an example of each, which a test checks against the real replies.
 */
public final class DistlockEndpointReplies {

    private DistlockEndpointReplies() {}

    /**
     * Locks held and waited for by this instance.
     * @param clientId the client's id
     * @param held holds, red-lock holds once per node
     * @param waiters waiters
     * @param events recent lock events, only when asked for with {@code eventsAfter}
     * @param evictionPolicies the {@code maxmemory-policy} of each server that holds this instance's
     *     locks, red-lock nodes included, as the clients read them when they connected
     * @param semaphores the semaphores this instance holds permits of, with every permit taken in Redis
     */
    public record LocksReport(
            String clientId,
            List<HeldLockReport> held,
            List<WaiterReport> waiters,
            @Nullable LockEventsReport events,
            List<EvictionPolicyReport> evictionPolicies,
            List<SemaphoreReport> semaphores)
            implements OperationResponseBody {

        /**
         * Creates a report without semaphores.
         * @param clientId the client's id
         * @param held holds
         * @param waiters waiters
         * @param events recent lock events, or {@code null}
         * @param evictionPolicies eviction policy of each server
         */
        public LocksReport(
                String clientId,
                List<HeldLockReport> held,
                List<WaiterReport> waiters,
                @Nullable LockEventsReport events,
                List<EvictionPolicyReport> evictionPolicies) {
            this(clientId, held, waiters, events, evictionPolicies, List.of());
        }

        /**
         * Creates a report without eviction policies.
         * @param clientId the client's id
         * @param held holds
         * @param waiters waiters
         * @param events recent lock events, or {@code null}
         */
        public LocksReport(
                String clientId,
                List<HeldLockReport> held,
                List<WaiterReport> waiters,
                @Nullable LockEventsReport events) {
            this(clientId, held, waiters, events, List.of());
        }

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
     * A semaphore this instance holds permits of.
     * @param name the semaphore's name
     * @param key its Redis key
     * @param availablePermits permits free now, or {@code null} when Redis could not be read
     * @param permits every permit taken now, by any instance, soonest expiry first
     * @param error why Redis could not be read, or {@code null}
     */
    public record SemaphoreReport(
            String name,
            String key,
            @Nullable Integer availablePermits,
            List<PermitReport> permits,
            @Nullable String error) {}

    /**
     * One permit taken, with its holder when it is this instance's.
     * @param permitId the permit's id
     * @param remainingTtlMillis how long its lease has left
     * @param annotationName the annotation's or template call's semaphore name, when held here
     * @param ownerThread the holding thread, when held here by a blocking call
     * @param heldSince when it was taken, when held here
     * @param watchdog whether the watchdog renews it, when held here
     * @param method what runs under it, when held here
     */
    public record PermitReport(
            String permitId,
            long remainingTtlMillis,
            @Nullable String annotationName,
            @Nullable String ownerThread,
            @Nullable Instant heldSince,
            @Nullable Boolean watchdog,
            @Nullable String method) {}

    /**
     * One server's eviction policy.
     * @param server {@code host:port}
     * @param policy its {@code maxmemory-policy}, or {@code unknown} when it refused {@code INFO memory}
     * @param mayEvictLocks whether Redis may evict lock keys there: every policy but {@code noeviction}
     * @param redLockNode index of the red-lock node, {@code null} for the main Redis
     */
    public record EvictionPolicyReport(
            String server, String policy, boolean mayEvictLocks, @Nullable Integer redLockNode) {}

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
