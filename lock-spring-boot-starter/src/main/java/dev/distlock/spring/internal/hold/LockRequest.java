package dev.distlock.spring.internal.hold;

import dev.distlock.spring.LockType;
import java.time.Duration;
import java.util.List;

/**
 * One resolved lock request.
 *
 * @param template lock name before the key is appended (metrics tag)
 * @param names resolved lock names; more than one makes a multi lock
 * @param type kind of lock
 * @param fenced whether a fenced lock is wanted
 * @param waitTime how long to wait; negative waits as long as it takes
 * @param leaseTime lease; negative uses the watchdog
 * @param description what runs under the lock, for messages
 * @param minHold shortest hold, counted from the acquisition; zero for none
 * @param permits permit count of a {@link LockType#SEMAPHORE} request, set on first use; 0 for locks
 */
public record LockRequest(
        String template,
        List<String> names,
        LockType type,
        boolean fenced,
        Duration waitTime,
        Duration leaseTime,
        String description,
        Duration minHold,
        int permits) {

    /**
     * Creates a lock request.
     * @param template lock name before the key is appended (metrics tag)
     * @param names resolved lock names; more than one makes a multi lock
     * @param type kind of lock
     * @param fenced whether a fenced lock is wanted
     * @param waitTime how long to wait; negative waits as long as it takes
     * @param leaseTime lease; negative uses the watchdog
     * @param description what runs under the lock, for messages
     * @param minHold shortest hold, counted from the acquisition; zero for none
     */
    public LockRequest(
            String template,
            List<String> names,
            LockType type,
            boolean fenced,
            Duration waitTime,
            Duration leaseTime,
            String description,
            Duration minHold) {
        this(template, names, type, fenced, waitTime, leaseTime, description, minHold, 0);
    }

    /**
     * Creates a request without a minimum hold.
     * @param template lock name before the key is appended (metrics tag)
     * @param names resolved lock names; more than one makes a multi lock
     * @param type kind of lock
     * @param fenced whether a fenced lock is wanted
     * @param waitTime how long to wait; negative waits as long as it takes
     * @param leaseTime lease; negative uses the watchdog
     * @param description what runs under the lock, for messages
     */
    public LockRequest(
            String template,
            List<String> names,
            LockType type,
            boolean fenced,
            Duration waitTime,
            Duration leaseTime,
            String description) {
        this(template, names, type, fenced, waitTime, leaseTime, description, Duration.ZERO);
    }

    /** @return a display name of the lock */
    public String displayName() {
        return names.size() == 1 ? names.get(0) : names.toString();
    }
}
