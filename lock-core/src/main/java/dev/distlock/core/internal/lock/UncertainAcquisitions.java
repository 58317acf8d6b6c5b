package dev.distlock.core.internal.lock;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acquisitions (lock key and owner field) whose last attempt got no reply its caller saw: the
 * script may have run, so the owner's next attempt adopts a hold it finds rather than taking
 * another, and an owner that gives up releases what such an attempt may have taken.
 *
 * <p>An attempt is marked before it is sent, together with the future its caller waits on. The mark
 * counts only while that future has not completed normally, that is while the caller has not
 * received a reply: the caller's cancellation and the reply race on that one future, so exactly one
 * wins, and a reply that arrives after the caller stopped waiting leaves the mark.
 *
 * <p>When the acquire call ends without a hold, one release is sent (after every attempt of the
 * call, on the same connection, so Redis runs it after them) and the mark goes once it is answered,
 * or after one lease if it is not: by then anything such an attempt took has expired. So a one-shot
 * owner leaves nothing behind.
 */
public final class UncertainAcquisitions {

    private static final Logger log = LoggerFactory.getLogger(UncertainAcquisitions.class);

    private final Map<String, Attempt> attempts = new ConcurrentHashMap<>();

    /** One attempt: the future its caller waits on. */
    private record Attempt(CompletableFuture<?> toCaller) {

        boolean delivered() {
            return toCaller.isDone() && !toCaller.isCompletedExceptionally();
        }
    }

    /**
     * Returns whether an earlier attempt of this acquisition may have taken a hold unseen.
     * @param id lock key and owner field
     * @return whether it is marked
     */
    boolean contains(String id) {
        Attempt attempt = attempts.get(id);
        if (attempt != null && attempt.delivered()) {
            attempts.remove(id, attempt);
            return false;
        }
        return attempt != null;
    }

    /**
     * Marks an attempt about to be sent.
     * @param id lock key and owner field
     * @param toCaller the future its caller waits on; complete it with the reply
     */
    void begin(String id, CompletableFuture<?> toCaller) {
        attempts.put(id, new Attempt(toCaller));
    }

    /**
     * Forgets an acquisition whose caller got the lock.
     * @param id lock key and owner field
     */
    void acquired(String id) {
        Attempt attempt = attempts.get(id);
        if (attempt != null && attempt.delivered()) {
            attempts.remove(id, attempt);
        }
    }

    /**
     * Settles a marked acquisition whose caller gave up: releases what its attempts may have taken.
     * @param id lock key and owner field
     * @param release sends one release of the owner's hold
     * @param forgetAfterMillis how long any hold such an attempt took can live
     * @param scheduler runs the deferred clean-up
     * @param lockName for the log
     */
    void gaveUp(
            String id,
            Supplier<CompletableFuture<?>> release,
            long forgetAfterMillis,
            ScheduledExecutorService scheduler,
            String lockName) {
        Attempt attempt = attempts.get(id);
        if (attempt == null) {
            return;
        }
        if (attempt.delivered()) {
            // The caller saw the reply (refused, most likely): nothing was taken unseen.
            attempts.remove(id, attempt);
            return;
        }
        CompletableFuture<?> sent;
        try {
            sent = release.get();
        } catch (RuntimeException ex) {
            sent = CompletableFuture.failedFuture(ex);
        }
        sent.whenComplete((reply, failure) -> {
            if (failure == null) {
                attempts.remove(id, attempt);
                return;
            }
            log.debug(
                    "Could not release what a lost acquire reply of lock '{}' may have taken; it expires with its lease",
                    lockName,
                    failure);
            try {
                scheduler.schedule(() -> attempts.remove(id, attempt), forgetAfterMillis, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException ex) {
                attempts.remove(id, attempt);
            }
        });
    }

    /** @return whether nothing is marked */
    public boolean isEmpty() {
        return attempts.isEmpty();
    }

    /** @return how many acquisitions are marked */
    public int size() {
        return attempts.size();
    }

    void clear() {
        attempts.clear();
    }
}
