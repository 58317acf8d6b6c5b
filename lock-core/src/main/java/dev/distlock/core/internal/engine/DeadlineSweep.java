package dev.distlock.core.internal.engine;

import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one timer behind every reply deadline of a client: pending replies wait in a queue, and one
 * periodic sweep fails those whose deadline passed. A reply that arrives in time costs a queue
 * entry and nothing else: no task is scheduled or cancelled per command, so the scheduler's queue
 * does not grow with the rate of calls (a task per command, cancelled but kept until its time, did).
 *
 * <p>A deadline fires at most one period late, which the deadline's slack covers.
 */
final class DeadlineSweep {

    private static final Logger log = LoggerFactory.getLogger(DeadlineSweep.class);

    /** Something that may miss its deadline. */
    interface Pending {

        /** @return whether it is over (answered, failed or cancelled): the sweep forgets it */
        boolean isDone();

        /** @return its deadline, in {@link System#nanoTime()} terms */
        long expiresAt();

        /** Called once, on the sweeping thread, when the deadline passed and it is not over. */
        void expire();
    }

    private final Queue<Pending> pending = new ConcurrentLinkedQueue<>();

    /**
     * Starts the sweep.
     * @param scheduler the client's scheduler; the sweep stops with it
     * @param periodNanos how often to sweep
     */
    DeadlineSweep(ScheduledExecutorService scheduler, long periodNanos) {
        try {
            scheduler.scheduleWithFixedDelay(this::sweep, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException ex) {
            // Created while closing: the connections close too, which fails every command.
        }
    }

    /**
     * Returns how often a client with this command timeout sweeps: often enough that a deadline is
     * late by a small part of the timeout, rarely enough that an idle client costs nothing.
     * @param commandTimeoutNanos the command timeout
     * @return the period
     */
    static long periodFor(long commandTimeoutNanos) {
        return Math.max(
                TimeUnit.MILLISECONDS.toNanos(5),
                Math.min(TimeUnit.MILLISECONDS.toNanos(50), commandTimeoutNanos / 20));
    }

    /**
     * Watches a pending reply until it is over or its deadline passed.
     * @param reply the reply
     */
    void watch(Pending reply) {
        pending.add(reply);
    }

    /** @return how many replies are watched, for tests */
    int watched() {
        return pending.size();
    }

    void sweep() {
        long now = System.nanoTime();
        for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
            Pending reply = it.next();
            if (reply.isDone()) {
                it.remove();
            } else if (now - reply.expiresAt() >= 0) {
                it.remove();
                try {
                    reply.expire();
                } catch (RuntimeException ex) {
                    // One failing expiry must not stop the sweep, which every other deadline needs.
                    log.warn("Could not fail a reply past its deadline", ex);
                }
            }
        }
    }
}
