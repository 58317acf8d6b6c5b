package dev.distlock.spring.internal.actuator;

import dev.distlock.core.HeldLock;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockException;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockKind;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.HeldLockReport;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.NodeState;
import dev.distlock.spring.internal.hold.Hold;
import dev.distlock.spring.internal.hold.HoldIndex;
import dev.distlock.spring.internal.hold.StringKeyHold;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads what the endpoint reports: a lock's state on one Redis, and one hold of this instance with
 * its lease left and the method behind it. A Redis that cannot be reached gives state
 * {@code unknown} and an error, never an exception.
 */
final class LockStateReader {

    private final HoldIndex holds;

    LockStateReader(HoldIndex holds) {
        this.holds = holds;
    }

    static NodeState nodeState(@Nullable Integer node, LockClient target, String name) {
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

    /**
     * Reports a hold on a plain string key (Spring Integration's layout), which core does not list:
     * a reentrant lock under its Redis key, with what holds it in place of a method.
     */
    static HeldLockReport report(StringKeyHold held) {
        Long ttl = null;
        String error = null;
        try {
            long remaining = held.remainingTtlMillis();
            ttl = remaining >= 0 ? remaining : null;
        } catch (LockException ex) {
            error = ex.getMessage();
        }
        return new HeldLockReport(
                held.name(),
                held.key(),
                LockKind.REENTRANT.kindName(),
                null,
                null,
                held.threadName(),
                held.ownerId(),
                held.holdCount(),
                held.since(),
                ttl,
                held.watchdog(),
                held.description(),
                error);
    }

    HeldLockReport report(LockClient owner, HeldLock held, @Nullable Integer redLockNode) {
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
                hold != null ? hold.request().template() : null,
                hold != null ? hold.threadName() : null,
                held.ownerId(),
                held.holdCount(),
                held.since(),
                ttl,
                held.watchdog(),
                hold != null ? hold.request().description() : null,
                error);
    }
}
