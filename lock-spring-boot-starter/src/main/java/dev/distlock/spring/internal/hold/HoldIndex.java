package dev.distlock.spring.internal.hold;

import dev.distlock.core.LockListener;
import dev.distlock.spring.LeaseLostPolicy;
import dev.distlock.spring.LockType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The holds and waiters of the annotation and the template, by the lock name core reports events
 * under and the owner: the link from core's lock events and {@code heldLocks()}, which know only
 * names and owners, to the method, thread or future behind a hold. Core keeps the count and age of
 * each hold; this index keeps only what core cannot know.
 *
 * <p>Its {@linkplain #listener() listener} is the client's first: it hears lost leases and applies
 * the lease-lost policy before the application's listeners hear of them. The index is not itself a
 * listener, so that a context collecting {@link LockListener} beans does not register it twice.
 */
public final class HoldIndex {

    private static final Logger logger = LoggerFactory.getLogger(HoldIndex.class);

    /** Holds by key; a reentrant hold follows the hold it nests in. */
    private final Map<String, List<Hold>> holds = new ConcurrentHashMap<>();

    private final Map<Object, Waiter> waiters = new ConcurrentHashMap<>();
    /**
     * Holds on plain string keys, which core does not list: kept apart from {@link #holds}, as they
     * are not the annotation's and a shutdown does not wait for them.
     */
    private final Set<StringKeyHold> stringKeyHolds = ConcurrentHashMap.newKeySet();

    private final Object emptied = new Object();
    private final LeaseLostPolicy policy;
    private final LockListener listener = new LockListener() {
        @Override
        public void onLeaseLost(String lockName, long ownerId) {
            leaseLost(lockName, ownerId);
        }
    };

    /**
     * Creates an empty index.
     * @param policy what to do when a lease is lost
     */
    public HoldIndex(LeaseLostPolicy policy) {
        this.policy = policy;
    }

    LeaseLostPolicy policy() {
        return policy;
    }

    void add(Hold hold) {
        holds.compute(key(hold.eventName, hold.ownerId), (key, held) -> {
            List<Hold> more = held == null ? new ArrayList<>(1) : new ArrayList<>(held);
            more.add(hold);
            return List.copyOf(more);
        });
    }

    void remove(Hold hold) {
        holds.computeIfPresent(key(hold.eventName, hold.ownerId), (key, held) -> {
            List<Hold> rest = new ArrayList<>(held);
            rest.remove(hold);
            return rest.isEmpty() ? null : List.copyOf(rest);
        });
        notifyIfEmpty();
    }

    private void notifyIfEmpty() {
        if (holds.isEmpty() && waiters.isEmpty()) {
            synchronized (emptied) {
                emptied.notifyAll();
            }
        }
    }

    /**
     * Returns the outermost hold of a lock name and owner, if the annotation or template took it.
     * @param eventName the lock name core reports
     * @param ownerId the owner
     * @return the hold, or {@code null}
     */
    @Nullable
    public Hold find(String eventName, long ownerId) {
        List<Hold> held = holds.get(key(eventName, ownerId));
        return held == null ? null : held.get(0);
    }

    /**
     * Returns every hold of a lock name and owner, outermost first: the levels of a re-entered hold.
     * @param eventName the lock name core reports
     * @param ownerId the owner
     * @return the holds, empty when none
     */
    List<Hold> levels(String eventName, long ownerId) {
        return holds.getOrDefault(key(eventName, ownerId), List.of());
    }

    /**
     * Returns the semaphore permits held through the annotation or the template, for the endpoint.
     * @return the permit holds
     */
    public List<Hold> permitHolds() {
        return all().stream().filter(h -> h.type() == LockType.SEMAPHORE).toList();
    }

    List<Hold> all() {
        List<Hold> all = new ArrayList<>();
        holds.values().forEach(all::addAll);
        return all;
    }

    /**
     * Waits until no hold is left and no acquisition is under way (a waiter granted the lock is
     * indexed as a hold before its wait ends, so a hand-off never looks empty), or the time runs out.
     * @return the number of holds still held
     */
    int awaitEmpty(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (emptied) {
            while (!holds.isEmpty() || !waiters.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                TimeUnit.NANOSECONDS.timedWait(emptied, left);
            }
        }
        return all().size();
    }

    Object waitStarted(LockRequest request, @Nullable Thread thread) {
        Object token = new Object();
        String threadName = thread != null ? thread.getName() : null;
        waiters.put(token, new Waiter(String.join(",", request.names()), request.type(), threadName, Instant.now()));
        return token;
    }

    void waitEnded(Object token) {
        waiters.remove(token);
        notifyIfEmpty();
    }

    void addStringKeyHold(StringKeyHold hold) {
        stringKeyHolds.add(hold);
    }

    void removeStringKeyHold(StringKeyHold hold) {
        stringKeyHolds.remove(hold);
    }

    /**
     * Returns the holds of this instance on plain string keys, which core's {@code heldLocks()} does
     * not list.
     * @return a snapshot
     */
    public List<StringKeyHold> stringKeyHolds() {
        return List.copyOf(stringKeyHolds);
    }

    public List<Waiter> waiters() {
        return new ArrayList<>(waiters.values());
    }

    /**
     * Returns the listener of the main client, which hears its lost leases.
     * @return the listener
     */
    public LockListener listener() {
        return listener;
    }

    /**
     * Marks the holds of a lock name and owner lost: warns and counts once, and applies the policy
     * to the work running under each.
     */
    void leaseLost(String eventName, long ownerId) {
        List<Hold> held = holds.getOrDefault(key(eventName, ownerId), List.of());
        Set<Thread> interrupted = new HashSet<>();
        boolean told = false;
        for (Hold hold : held) {
            if (!hold.markLost()) {
                continue;
            }
            if (!told) {
                told = true;
                logger.warn(
                        "Lease of lock '{}' was lost while {} was running (lease-lost-policy={})",
                        eventName,
                        hold.request.description(),
                        policy.name().toLowerCase(Locale.ROOT));
                hold.observation.leaseLost();
            }
            // A hold kept by its minimum hold outlived its method: its thread runs other work now.
            if (policy == LeaseLostPolicy.INTERRUPT && !hold.deferred) {
                Runnable canceller = hold.canceller;
                if (canceller != null) {
                    canceller.run();
                } else if (hold.thread != null && interrupted.add(hold.thread)) {
                    hold.thread.interrupt();
                }
            }
        }
    }

    /**
     * Returns the listener of one red-lock node's client: a lost lease there counts against the red
     * lock's quorum instead of losing the hold outright.
     * @param node index of the node
     * @param nodes number of nodes
     * @return the listener
     */
    public LockListener redLockNodeListener(int node, int nodes) {
        return new LockListener() {
            @Override
            public void onLeaseLost(String lockName, long ownerId) {
                redLockNodeLeaseLost(lockName, ownerId, node, nodes);
            }
        };
    }

    private void redLockNodeLeaseLost(String eventName, long ownerId, int node, int nodes) {
        Hold hold = find(eventName, ownerId);
        if (hold == null || hold.request.type() != LockType.RED) {
            return;
        }
        hold.lostRedLockNodes.add(node);
        int quorum = nodes / 2 + 1;
        int holding = nodes - hold.lostRedLockNodes.size();
        if (holding < quorum) {
            leaseLost(eventName, ownerId);
        } else {
            logger.info(
                    "Red lock '{}' lost its lease on node {} of {}; {} still hold it (quorum {})",
                    eventName,
                    node,
                    nodes,
                    holding,
                    quorum);
        }
    }

    private static String key(String eventName, long ownerId) {
        return ownerId + ":" + eventName;
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
