package dev.distlock.core.internal.hold;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acquisitions (lock key and owner field) whose last attempt got no reply its caller saw: the
 * script may have run, so the owner's next attempt adopts a hold it finds rather than taking
 * another, and an owner that gives up releases what such an attempt may have taken.
 *
 * <p>An attempt is marked before it is sent, together with its id and the future its caller waits
 * on. The mark tells one of three things: the attempt is in flight (the future is pending), its
 * reply was delivered (the future completed normally; the mark is dropped), or its reply was lost
 * (the caller stopped waiting first: the future failed or was cancelled). The caller's cancellation
 * and the reply race on that one future, so exactly one wins, and a reply that arrives after the
 * caller stopped waiting leaves the mark. One owner may run several acquisitions of one lock at
 * once (an explicit owner id used from several tasks), so each key keeps every attempt's mark: one
 * attempt's mark never hides another's.
 *
 * <p>When the acquire call ends without a hold, one clean-up release is sent, naming the lost
 * attempts by id. Redis keeps, beside the lock, the id of the attempt that last took it afresh for
 * the owner, and the clean-up releases a hold only when that id is one of the lost ones. So it can
 * never undo a hold granted to a later attempt of the same owner, in whatever order the clean-up
 * and that attempt reach Redis (a reconnect, a retried write or another connection may reorder
 * them). The marks go once the clean-up is answered, or after one lease if it is not: by then
 * anything such an attempt took has expired.
 */
public final class UncertainAcquisitions {

    private static final Logger log = LoggerFactory.getLogger(UncertainAcquisitions.class);

    /** Marks per lock key and owner field; each list is only read or changed inside the map's compute methods. */
    private final Map<Object, List<Attempt>> attempts = new ConcurrentHashMap<>();

    /** One attempt: its id, as the acquire script records a grant, and the future its caller waits on. */
    private record Attempt(String id, CompletableFuture<?> toCaller) {

        boolean delivered() {
            return toCaller.isDone() && !toCaller.isCompletedExceptionally();
        }

        boolean lost() {
            return toCaller.isCompletedExceptionally();
        }

        boolean inFlight() {
            return !toCaller.isDone();
        }
    }

    /**
     * Returns whether an earlier attempt of this owner may have taken a hold unseen: its reply was lost.
     * @param id lock key and owner field, as a value with equals and hashCode
     * @return whether such a mark is kept
     */
    public boolean contains(Object id) {
        // Most attempts find no mark: answer without locking the map's bin or copying.
        return attempts.containsKey(id) && prune(id).stream().anyMatch(Attempt::lost);
    }

    /**
     * Returns whether another attempt of this owner is waiting for its reply now, so that a hold of
     * the owner this attempt finds may be that attempt's grant.
     * @param id lock key and owner field
     * @return whether an attempt is in flight
     */
    public boolean inFlight(Object id) {
        return attempts.containsKey(id) && prune(id).stream().anyMatch(Attempt::inFlight);
    }

    /**
     * Marks an attempt about to be sent.
     * @param id lock key and owner field
     * @param attemptId the attempt's id, unique in this client, which its script records with a grant
     * @param toCaller the future its caller waits on; complete it with the reply
     */
    public void begin(Object id, String attemptId, CompletableFuture<?> toCaller) {
        attempts.compute(id, (key, marks) -> {
            List<Attempt> list = marks != null ? marks : new ArrayList<>(2);
            list.add(new Attempt(attemptId, toCaller));
            return list;
        });
    }

    /**
     * Forgets the answered attempts of an owner that got the lock: a lost grant among them was
     * adopted, or counts as one of the owner's holds that its last unlock releases.
     * @param id lock key and owner field
     */
    public void acquired(Object id) {
        attempts.computeIfPresent(id, (key, marks) -> {
            marks.removeIf(attempt -> !attempt.inFlight());
            return marks.isEmpty() ? null : marks;
        });
    }

    /**
     * Settles the marks of an owner that gave up: releases what its lost attempts may have taken.
     * @param id lock key and owner field
     * @param release sends one release of a hold that one of the given lost attempts took (their
     *     ids, space-separated), and of no other hold
     * @param forgetAfterMillis how long any hold such an attempt took can live
     * @param scheduler runs the deferred clean-up
     * @param lockName for the log
     */
    public void gaveUp(
            Object id,
            Function<String, CompletableFuture<?>> release,
            long forgetAfterMillis,
            ScheduledExecutorService scheduler,
            String lockName) {
        List<Attempt> marks = prune(id);
        List<Attempt> lost = marks.stream().filter(Attempt::lost).toList();
        if (lost.isEmpty()) {
            return;
        }
        // An attempt of the owner in flight now needs no waiting for: the release names the lost
        // attempts, and Redis releases only a hold that one of them was granted.
        String lostIds = lost.stream().map(Attempt::id).collect(Collectors.joining(" "));
        CompletableFuture<?> sent;
        try {
            sent = release.apply(lostIds);
        } catch (RuntimeException ex) {
            sent = CompletableFuture.failedFuture(ex);
        }
        sent.whenComplete((reply, failure) -> {
            if (failure == null) {
                forget(id, lost);
                return;
            }
            log.debug(
                    "Could not release what a lost acquire reply of lock '{}' may have taken; it expires with its lease",
                    lockName,
                    failure);
            forgetLater(id, lost, forgetAfterMillis, scheduler);
        });
    }

    private void forgetLater(Object id, List<Attempt> marks, long afterMillis, ScheduledExecutorService scheduler) {
        try {
            scheduler.schedule(() -> forget(id, marks), afterMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException ex) {
            forget(id, marks);
        }
    }

    private void forget(Object id, List<Attempt> marks) {
        attempts.computeIfPresent(id, (key, list) -> {
            list.removeAll(marks);
            return list.isEmpty() ? null : list;
        });
    }

    /** Drops the marks whose reply was delivered and returns a copy of the rest. */
    private List<Attempt> prune(Object id) {
        List<Attempt> left = new ArrayList<>();
        attempts.computeIfPresent(id, (key, marks) -> {
            marks.removeIf(Attempt::delivered);
            left.addAll(marks);
            return marks.isEmpty() ? null : marks;
        });
        return left;
    }

    /** @return whether nothing is marked */
    public boolean isEmpty() {
        return attempts.isEmpty();
    }

    /** @return how many acquisitions (lock key and owner) have marks */
    public int size() {
        return attempts.size();
    }

    public void clear() {
        attempts.clear();
    }
}
