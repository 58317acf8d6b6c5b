package dev.distlock.core.internal.composite;

import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.kind.SameServerMembers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Releasing a composite lock: one hold of the owner on its members, through their async API. */
public final class Releases {

    private static final Logger log = LoggerFactory.getLogger(Releases.class);

    private Releases() {}

    /**
     * Releases a multi lock: every member in turn, last taken first, even when some fail.
     * @param ordered the members in canonical order
     * @param ownerId the owner
     * @return completes when every member was asked; fails with the first failure, the others
     *     attached as suppressed exceptions
     */
    public static CompletableFuture<Void> multi(List<RedisLock> ordered, long ownerId) {
        CompletableFuture<List<Throwable>> chain = CompletableFuture.completedFuture(new ArrayList<>());
        for (RedisLock lock : Members.reversed(ordered)) {
            chain = chain.thenCompose(failures -> Members.unlock(lock, ownerId).handle((ok, failure) -> {
                if (failure != null) {
                    failures.add(Members.unwrap(failure));
                }
                return failures;
            }));
        }
        return chain.thenApply(failures -> {
            throwFirst(failures);
            return null;
        });
    }

    /**
     * Releases a multi lock taken one script per server: every group at once, one script each,
     * even when some fail.
     * @param groups the members, grouped by the script that releases them
     * @param ownerId the owner
     * @return completes when every group was asked; fails with the first failure in canonical
     *     order, the others attached as suppressed exceptions
     */
    public static CompletableFuture<Void> batched(List<SameServerMembers> groups, long ownerId) {
        List<CompletableFuture<List<@Nullable Throwable>>> calls =
                groups.stream().map(group -> group.release(ownerId)).toList();
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).thenApply(done -> {
            List<Throwable> failures = new ArrayList<>();
            for (CompletableFuture<List<@Nullable Throwable>> call : calls) {
                for (Throwable failure : call.join()) {
                    if (failure != null) {
                        failures.add(Members.unwrap(failure));
                    }
                }
            }
            throwFirst(failures);
            return null;
        });
    }

    private static void throwFirst(List<Throwable> failures) {
        if (!failures.isEmpty()) {
            Throwable first = failures.get(0);
            // The members of one batch that failed together share one failure: attach it once.
            failures.stream().distinct().filter(failure -> failure != first).forEach(first::addSuppressed);
            throw first instanceof RuntimeException runtime ? runtime : new CompletionException(first);
        }
    }

    /**
     * Releases a red lock on every master at once; masters that are down are skipped (their hold
     * expires with its lease).
     * @param locks one member per master
     * @param name the red lock's name, for messages
     * @param ownerId the owner
     * @return completes when some master released it; fails with an
     *     {@link IllegalMonitorStateException} when the reachable masters do not hold it, or when a
     *     majority of the masters answered that they no longer did (its lease was lost; the others
     *     release it all the same), else with the failures of the unreachable ones
     */
    public static CompletableFuture<Void> red(List<RedisLock> locks, String name, long ownerId) {
        // Before any release is sent: a master the watchdog hold takes again from now on is given back.
        RedLockHolds.released(locks, ownerId);
        List<CompletableFuture<@Nullable Throwable>> calls = locks.stream()
                .map(lock -> Members.unlock(lock, ownerId).handle((ok, failure) -> Members.unwrap(failure)))
                .toList();
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                .thenApply(done ->
                        redOutcome(calls.stream().map(CompletableFuture::join).toList(), locks.size(), name, ownerId));
    }

    private static @Nullable Void redOutcome(
            List<@Nullable Throwable> outcomes, int masters, String name, long ownerId) {
        int released = 0;
        int notHeld = 0;
        @Nullable IllegalMonitorStateException firstNotHeld = null;
        List<RuntimeException> failures = new ArrayList<>();
        for (Throwable cause : outcomes) {
            if (cause == null) {
                released++;
            } else if (cause instanceof IllegalMonitorStateException refused) {
                notHeld++;
                if (firstNotHeld == null) {
                    firstNotHeld = refused;
                }
            } else if (cause instanceof RuntimeException runtime) {
                failures.add(runtime);
            } else {
                failures.add(new LockException("Cannot unlock red lock " + name + ": " + cause.getMessage(), cause));
            }
        }
        if (released > 0 && notHeld > masters - (masters / 2 + 1)) {
            // A majority of masters answered that they no longer held it: its lease was lost, as a
            // single lock's unlock reports one; the holds left on the others are released all the same.
            IllegalMonitorStateException ex = new IllegalMonitorStateException("Cannot unlock red lock " + name
                    + ": its lease was lost: " + notHeld + " of its " + masters
                    + " masters no longer held it for owner "
                    + ownerId + " (expired, restarted without persistence, evicted or force-unlocked), more than a"
                    + " quorum allows; the " + released + " that still did released it; first master: "
                    + (firstNotHeld != null ? firstNotHeld.getMessage() : "-"));
            failures.forEach(ex::addSuppressed);
            throw ex;
        }
        if (released > 0) {
            if (!failures.isEmpty()) {
                log.warn(
                        "Red lock {}: released on {} of {} masters; {} failed and expire with their lease",
                        name,
                        released,
                        masters,
                        failures.size());
            }
            return null;
        }
        if (notHeld > 0) {
            IllegalMonitorStateException ex = new IllegalMonitorStateException("Cannot unlock red lock " + name
                    + ": none of its " + notHeld + " reachable masters (of " + masters + ") holds it for owner "
                    + ownerId + " (expired, force-unlocked or never taken); first master: "
                    + (firstNotHeld != null ? firstNotHeld.getMessage() : "-"));
            failures.forEach(ex::addSuppressed);
            throw ex;
        }
        RuntimeException first = failures.get(0);
        failures.subList(1, failures.size()).forEach(first::addSuppressed);
        throw first;
    }
}
