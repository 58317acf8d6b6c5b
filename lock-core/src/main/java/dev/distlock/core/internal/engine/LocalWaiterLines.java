package dev.distlock.core.internal.engine;

import dev.distlock.core.internal.pubsub.ChannelWaiters;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * One line per lock of the acquisitions of this client that wait for it: only the head of a line
 * tries in Redis, the others wait here without a Redis call, and the next one takes the head's
 * place when the head wins or gives up. Without it, every local waiter tries, queues its tries on
 * the client's one connection and listens for every release; with it, a lock contended by a
 * thousand local callers costs Redis what one waiter costs.
 *
 * <p>Kinds whose order Redis keeps (fair locks) or whose waiters may all win together (read locks)
 * do not queue here; neither does a caller that makes one attempt, nor an owner that already holds
 * the lock (its re-entry must not wait behind others). For the same reason the calls of an owner
 * that takes the lock while they wait leave the line at once to re-enter.
 */
public final class LocalWaiterLines {

    private final ConcurrentHashMap<String, Line> lines = new ConcurrentHashMap<>();

    /** What a line needs of an acquisition waiting in it; the acquisition pipeline implements it. */
    public interface Waiter {

        /**
         * Joins the lock's wake-up channel for this call as it is made the head of the line, while the
         * previous head still listens there.
         * @return the channel, or {@code null} when it cannot be joined now
         */
        @Nullable
        ChannelWaiters joinForTurn();

        /** @return the owner the acquisition is for */
        long ownerId();

        /**
         * Returns whether the acquisition's owner holds the lock now, so that the call re-enters
         * rather than waits in the line.
         * @return whether the owner holds the lock
         */
        boolean ownerHolds();
    }

    /** The acquisitions of one lock key: the head tries in Redis, the rest wait in arrival order. */
    private static final class Line {

        /** Guarded by {@code this}. */
        Waiter head;
        /** Guarded by {@code this}; created when a second caller arrives. */
        @Nullable
        ArrayDeque<Queued> queued;
        /** Set, under {@code this}, once the line left the map: an arriving caller starts a new one. */
        boolean gone;

        Line(Waiter head) {
            this.head = head;
        }
    }

    /**
     * A caller waiting in a line. Its turn completes with the wake-up channel it inherits (or
     * {@code null}) when it becomes the head, and with {@code null} when its wait ended, the client
     * closed or it was cancelled; {@link #leftWaiting()} tells which of the two happened.
     */
    public static final class Queued {

        private static final int WAITING = 0;
        private static final int HEAD = 1;
        private static final int LEFT = 2;
        private static final int REENTERS = 3;

        final Waiter call;
        public final CompletableFuture<@Nullable ChannelWaiters> turn = new CompletableFuture<>();
        /**
         * Set before its turn completes with a channel when the head it follows acquired the lock and
         * that holder's release will be heard on the channel: it parks first instead of trying a lock
         * its own client holds.
         */
        public volatile boolean holderWakes;
        /**
         * With {@link #holderWakes}: ms until that holder's lease can lapse without a release, or
         * {@code -1} when the watchdog renews it; the park before trying ends then at the latest.
         */
        public volatile long holderLeaseLeftMillis = -1;

        private final AtomicInteger state = new AtomicInteger(WAITING);

        Queued(Waiter call) {
            this.call = call;
        }

        /**
         * Leaves the line without having tried, unless it was made the head first.
         * @return {@code true} when it left; {@code false} when it heads the line and must end as a head does
         */
        public boolean leftWaiting() {
            return state.compareAndSet(WAITING, LEFT);
        }

        /**
         * Returns whether it left the line because its owner took the lock meanwhile; asked once
         * {@link #leftWaiting()} answered {@code false}.
         * @return {@code true} when it must re-enter at once rather than head the line
         */
        public boolean reenters() {
            return state.get() == REENTERS;
        }

        private boolean promote() {
            return state.compareAndSet(WAITING, HEAD);
        }

        private boolean reenter() {
            return state.compareAndSet(WAITING, REENTERS);
        }
    }

    /**
     * Enters the line of a lock.
     * @param key the lock key
     * @param call the acquisition
     * @return {@code null} when the call heads the line and tries now, else its place in the line
     */
    @Nullable
    public Queued enter(String key, Waiter call) {
        Line fresh = new Line(call);
        while (true) {
            Line line = lines.putIfAbsent(key, fresh);
            if (line == null) {
                return null;
            }
            Queued queued = null;
            synchronized (line) {
                if (!line.gone) {
                    queued = new Queued(call);
                    ArrayDeque<Queued> waiting = line.queued;
                    if (waiting == null) {
                        waiting = new ArrayDeque<>();
                        line.queued = waiting;
                    }
                    waiting.add(queued);
                }
            }
            if (queued != null) {
                if (call.ownerHolds()) {
                    // The owner took the lock after the caller looked and before it was queued: the
                    // head that took it moved the owner's calls out of the line before this one came.
                    // Left here, it would wait behind callers that wait for its owner's release.
                    ownerHolds(key, call.ownerId());
                }
                return queued;
            }
            // The line emptied as this caller arrived: start the next one.
        }
    }

    /**
     * Takes a caller that left without having tried out of its line.
     * @param key the lock key
     * @param queued the caller
     */
    public void remove(String key, Queued queued) {
        Line line = lines.get(key);
        if (line != null) {
            synchronized (line) {
                ArrayDeque<Queued> waiting = line.queued;
                if (waiting != null) {
                    waiting.remove(queued);
                }
            }
        }
    }

    /**
     * The head of a line is done (acquired, gave up, failed, cancelled): the next caller becomes the
     * head. While the head listened on a subscribed wake-up channel, the next one joins it before the
     * head leaves it, so the subscription stays and no release in between goes unheard.
     * @param key the lock key
     * @param head the acquisition that headed the line
     * @param channel the channel the head listened on, or {@code null}
     * @param holderWakes whether the head now holds the lock and its release will be heard on that channel
     * @param holderLeaseLeftMillis with {@code holderWakes}: ms until that hold's lease can lapse, {@code -1} unknown
     */
    public void headDone(
            String key,
            Waiter head,
            @Nullable ChannelWaiters channel,
            boolean holderWakes,
            long holderLeaseLeftMillis) {
        Line line = lines.get(key);
        if (line == null) {
            return;
        }
        Queued next = null;
        synchronized (line) {
            if (line.head != head) {
                return;
            }
            ArrayDeque<Queued> waiting = line.queued;
            while (waiting != null && next == null) {
                Queued candidate = waiting.poll();
                if (candidate == null) {
                    break;
                }
                if (candidate.promote()) {
                    next = candidate;
                }
            }
            if (next == null) {
                line.gone = true;
                lines.remove(key, line);
                return;
            }
            line.head = next.call;
        }
        ChannelWaiters inherited = null;
        if (channel != null && channel.confirmed()) {
            inherited = next.call.joinForTurn();
            next.holderWakes = holderWakes && inherited == channel;
            next.holderLeaseLeftMillis = holderLeaseLeftMillis;
        }
        if (!next.turn.complete(inherited) && inherited != null) {
            // Cancelled or closed meanwhile: it ends as a head without the channel it never saw.
            inherited.leave();
        }
    }

    /**
     * An owner of this client took the lock: its calls that wait in the line re-enter at once. Left
     * there, they would wait for callers that wait for this owner's release, which may never come
     * when the owner waits for all of its calls. Called before the head that won hands the line on,
     * so that none of them is made the head.
     * @param key the lock key
     * @param ownerId the owner that holds the lock now
     */
    public void ownerHolds(String key, long ownerId) {
        Line line = lines.get(key);
        if (line == null) {
            return;
        }
        List<Queued> reentering = new ArrayList<>();
        synchronized (line) {
            ArrayDeque<Queued> waiting = line.queued;
            if (waiting == null) {
                return;
            }
            for (Iterator<Queued> it = waiting.iterator(); it.hasNext(); ) {
                Queued queued = it.next();
                // One that left or was made the head meanwhile is not this line's to move.
                if (queued.call.ownerId() == ownerId && queued.reenter()) {
                    it.remove();
                    reentering.add(queued);
                }
            }
        }
        reentering.forEach(queued -> queued.turn.complete(null));
    }

    /**
     * Returns whether callers wait behind the head of a lock's line: the head's grant keeps this client
     * listed as waiting, so that the holder's release reaches the next one.
     * @param key the lock key
     * @return whether anyone is queued
     */
    public boolean hasQueued(String key) {
        Line line = lines.get(key);
        if (line == null) {
            return false;
        }
        synchronized (line) {
            return line.queued != null && !line.queued.isEmpty();
        }
    }

    /** Ends every wait in a line: the client closed, and each caller finds that out. */
    void close() {
        List<Queued> all = new ArrayList<>();
        for (Line line : lines.values()) {
            synchronized (line) {
                if (line.queued != null) {
                    all.addAll(line.queued);
                }
            }
        }
        all.forEach(queued -> queued.turn.complete(null));
    }

    /** @return how many callers wait behind the heads of all lines, for tests and diagnostics */
    int queued() {
        int count = 0;
        for (Line line : lines.values()) {
            synchronized (line) {
                count += line.queued == null ? 0 : line.queued.size();
            }
        }
        return count;
    }
}
