package dev.distlock.spring.internal;

import dev.distlock.core.LockListener;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener installed in the auto-configured client: reports lost leases to {@link ActiveHolds}
 * and forwards every event to the application's {@link LockListener} beans.
 */
public final class DistlockLockListener implements LockListener {

    private static final Logger logger = LoggerFactory.getLogger(DistlockLockListener.class);

    private final ActiveHolds holds;
    private final List<LockListener> delegates;
    private final int redLockNode;
    private final int redLockNodes;

    /**
     * Creates the listener of the main client.
     * @param holds registry of active holds
     * @param delegates application listeners
     */
    public DistlockLockListener(ActiveHolds holds, List<LockListener> delegates) {
        this(holds, delegates, -1, 0);
    }

    private DistlockLockListener(ActiveHolds holds, List<LockListener> delegates, int redLockNode, int redLockNodes) {
        this.holds = holds;
        this.delegates = List.copyOf(delegates);
        this.redLockNode = redLockNode;
        this.redLockNodes = redLockNodes;
    }

    /**
     * Creates the listener of one red-lock node's client: a lost lease there counts against the red
     * lock's quorum instead of losing the hold outright.
     * @param holds registry of active holds
     * @param delegates application listeners
     * @param node index of the node
     * @param nodes number of nodes
     * @return the listener
     */
    public static DistlockLockListener forRedLockNode(
            ActiveHolds holds, List<LockListener> delegates, int node, int nodes) {
        return new DistlockLockListener(holds, delegates, node, nodes);
    }

    @Override
    public void onAcquired(String lockName, long ownerId, long waitNanos) {
        forEach(l -> l.onAcquired(lockName, ownerId, waitNanos));
    }

    @Override
    public void onTimeout(String lockName, long ownerId, long waitNanos) {
        forEach(l -> l.onTimeout(lockName, ownerId, waitNanos));
    }

    @Override
    public void onReleasing(String lockName, long ownerId) {
        forEach(l -> l.onReleasing(lockName, ownerId));
    }

    @Override
    public void onReleased(String lockName, long ownerId) {
        forEach(l -> l.onReleased(lockName, ownerId));
    }

    @Override
    public void onLeaseLost(String lockName, long ownerId) {
        if (redLockNode >= 0) {
            holds.redLockNodeLeaseLost(lockName, ownerId, redLockNode, redLockNodes);
        } else {
            holds.leaseLost(lockName, ownerId);
        }
        forEach(l -> l.onLeaseLost(lockName, ownerId));
    }

    private void forEach(java.util.function.Consumer<LockListener> call) {
        for (LockListener delegate : delegates) {
            try {
                call.accept(delegate);
            } catch (RuntimeException ex) {
                logger.warn("LockListener {} failed", delegate, ex);
            }
        }
    }
}
