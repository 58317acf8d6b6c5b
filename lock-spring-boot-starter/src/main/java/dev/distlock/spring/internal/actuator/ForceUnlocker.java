package dev.distlock.spring.internal.actuator;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockException;
import dev.distlock.core.LockInfo;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.internal.hold.Hold;
import dev.distlock.spring.internal.hold.HoldIndex;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The endpoint's force-unlock on one Redis: releases a key only when it is a lock, through its
 * kind's own release, and logs at WARN who asked and whose holds it took, naming this instance's
 * methods and threads.
 */
final class ForceUnlocker {

    // Under the endpoint's name, where operators look for force-unlocks.
    private static final Logger logger = LoggerFactory.getLogger(DistlockEndpoint.class);

    private final HoldIndex holds;

    ForceUnlocker(HoldIndex holds) {
        this.holds = holds;
    }

    boolean forceUnlock(
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
        return "this instance: " + hold.request().description() + (thread != null ? " on thread '" + thread + "'" : "");
    }
}
