package dev.distlock.spring.internal;

import dev.distlock.spring.LeaseLostPolicy;
import dev.distlock.spring.LockType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this instance holds and waits for through the annotation and the template, by resolved lock
 * name and owner: the link between core lock events (which know only names and owner ids) and the
 * method, thread or future that holds the lock.
 */
public final class ActiveHolds {

    private static final Logger logger = LoggerFactory.getLogger(ActiveHolds.class);

    private final Map<String, Entry> holds = new ConcurrentHashMap<>();
    private final Map<Object, Waiter> waiters = new ConcurrentHashMap<>();
    private final Supplier<LockObserver> observer;
    private final LeaseLostPolicy policy;

    /**
     * Creates a registry.
     * @param observer metrics hooks
     * @param policy what to do when a lease is lost
     */
    public ActiveHolds(Supplier<LockObserver> observer, LeaseLostPolicy policy) {
        this.observer = observer;
        this.policy = policy;
    }

    /**
     * Returns the lease-lost policy.
     * @return the policy
     */
    public LeaseLostPolicy policy() {
        return policy;
    }

    Entry register(LockRequest request, String lockName, long ownerId, @Nullable Thread thread) {
        return holds.compute(key(lockName, ownerId), (k, existing) -> {
            if (existing != null) {
                existing.count++;
                return existing;
            }
            return new Entry(request, lockName, ownerId, thread);
        });
    }

    void unregister(Entry entry) {
        holds.computeIfPresent(
                key(entry.lockName, entry.ownerId), (k, existing) -> --existing.count > 0 ? existing : null);
    }

    Object waitStarted(LockRequest request, @Nullable Thread thread) {
        Object token = new Object();
        waiters.put(
                token,
                new Waiter(
                        String.join(",", request.names()),
                        request.type(),
                        thread != null ? thread.getName() : null,
                        Instant.now()));
        return token;
    }

    void waitEnded(Object token) {
        waiters.remove(token);
    }

    /**
     * Returns the hold of a resolved lock name and owner, if this registry knows it.
     * @param lockName resolved lock name
     * @param ownerId owner id
     * @return the entry or {@code null}
     */
    public @Nullable Entry find(String lockName, long ownerId) {
        return holds.get(key(lockName, ownerId));
    }

    /**
     * Returns the current holds.
     * @return a snapshot
     */
    public Collection<Entry> holds() {
        return List.copyOf(holds.values());
    }

    /**
     * Returns the current waiters.
     * @return a snapshot
     */
    public List<Waiter> waiters() {
        return new ArrayList<>(waiters.values());
    }

    /**
     * Called when the core reports a lost lease: warns, counts, and applies the policy.
     * @param lockName resolved lock name
     * @param ownerId owner id
     */
    public void leaseLost(String lockName, long ownerId) {
        Entry entry = holds.get(key(lockName, ownerId));
        if (entry == null || entry.lost) {
            return;
        }
        entry.lost = true;
        logger.warn(
                "Lease of lock '{}' was lost while {} was running (lease-lost-policy={})",
                lockName,
                entry.request.description(),
                policy.name().toLowerCase(java.util.Locale.ROOT));
        observer.get().leaseLost(entry.request.template(), entry.request.type());
        if (policy == LeaseLostPolicy.INTERRUPT) {
            Runnable canceller = entry.canceller;
            if (canceller != null) {
                canceller.run();
            } else if (entry.thread != null) {
                entry.thread.interrupt();
            }
        }
    }

    /**
     * Called when one red-lock node reports a lost lease: the hold is lost once fewer than a quorum
     * of nodes can still hold it.
     * @param lockName lock name
     * @param ownerId owner id
     * @param node index of the node that lost it
     * @param nodes number of nodes
     */
    public void redLockNodeLeaseLost(String lockName, long ownerId, int node, int nodes) {
        Entry entry = holds.get(key(lockName, ownerId));
        if (entry == null || entry.request.type() != LockType.RED) {
            return;
        }
        entry.lostRedLockNodes.add(node);
        int quorum = nodes / 2 + 1;
        if (nodes - entry.lostRedLockNodes.size() < quorum) {
            leaseLost(lockName, ownerId);
        } else {
            logger.info(
                    "Red lock '{}' lost its lease on node {} of {}; {} still hold it (quorum {})",
                    lockName,
                    node,
                    nodes,
                    nodes - entry.lostRedLockNodes.size(),
                    quorum);
        }
    }

    private static String key(String lockName, long ownerId) {
        return ownerId + ":" + lockName;
    }

    /** One hold known to this instance. */
    public static final class Entry {

        final LockRequest request;
        final String lockName;
        final long ownerId;
        final @Nullable Thread thread;
        final Instant since = Instant.now();
        int count = 1;
        volatile boolean lost;
        volatile @Nullable Runnable canceller;
        final java.util.Set<Integer> lostRedLockNodes = ConcurrentHashMap.newKeySet();

        Entry(LockRequest request, String lockName, long ownerId, @Nullable Thread thread) {
            this.request = request;
            this.lockName = lockName;
            this.ownerId = ownerId;
            this.thread = thread;
        }

        /** @return lock template (annotation name) */
        public String template() {
            return request.template();
        }

        /** @return resolved lock name */
        public String lockName() {
            return lockName;
        }

        /** @return lock type */
        public LockType type() {
            return request.type();
        }

        /** @return owner id */
        public long ownerId() {
            return ownerId;
        }

        /** @return name of the holding thread, or {@code null} for an asynchronous hold */
        public @Nullable String threadName() {
            return thread != null ? thread.getName() : null;
        }

        /** @return the guarded method or template call */
        public String description() {
            return request.description();
        }

        /** @return when the hold began */
        public Instant since() {
            return since;
        }

        /** @return whether the lease was lost */
        public boolean isLost() {
            return lost;
        }
    }

    /**
     * A caller waiting for a lock.
     * @param lockName resolved lock name(s)
     * @param type lock type
     * @param thread waiting thread name, or {@code null}
     * @param since when it started waiting
     */
    public record Waiter(String lockName, LockType type, @Nullable String thread, Instant since) {}
}
