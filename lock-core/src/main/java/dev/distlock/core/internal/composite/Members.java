package dev.distlock.core.internal.composite;

import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.acquire.CompositeLocks;
import dev.distlock.core.internal.kind.AbstractRedisLock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The members of a composite lock: checks, names, order, and calls that must not throw. */
public final class Members {

    private static final Logger log = LoggerFactory.getLogger(Members.class);

    private Members() {}

    /**
     * Checks the members of a composite lock.
     * @param kind {@code MultiLock} or {@code RedLock}, for messages
     * @param locks the members
     * @return an immutable copy
     */
    public static List<RedisLock> require(String kind, RedisLock[] locks) {
        Objects.requireNonNull(locks, "'locks' must not be null");
        if (locks.length == 0) {
            throw new IllegalArgumentException(kind + ".of(...) needs at least one lock");
        }
        for (int i = 0; i < locks.length; i++) {
            if (locks[i] == null) {
                throw new IllegalArgumentException("'locks[" + i + "]' must not be null");
            }
        }
        return List.of(locks);
    }

    /**
     * Returns the members' names joined, e.g. {@code [a, b]}.
     * @param locks the members
     * @return a display name
     */
    public static String joinedName(List<RedisLock> locks) {
        return locks.stream().map(RedisLock::getName).collect(Collectors.joining(", ", "[", "]"));
    }

    /**
     * Orders members the same way in every process that names the same locks on the same servers,
     * whatever order the caller gave: by key, then by server.
     * @param locks the members
     * @return the members in canonical order
     */
    public static List<RedisLock> canonicalOrder(List<RedisLock> locks) {
        List<RedisLock> sorted = new ArrayList<>(locks);
        sorted.sort((a, b) -> CompositeLocks.sortKey(a).compareTo(CompositeLocks.sortKey(b)));
        return List.copyOf(sorted);
    }

    /**
     * Returns a reversed copy, for releasing in the opposite order of taking.
     * @param locks members
     * @return the members, last first
     */
    public static List<RedisLock> reversed(List<RedisLock> locks) {
        List<RedisLock> copy = new ArrayList<>(locks);
        Collections.reverse(copy);
        return copy;
    }

    /**
     * Starts a member's single attempt or bounded wait; a call that throws becomes a failed future.
     * @param lock the member
     * @param waitMillis wait in ms, {@code 0} for one attempt
     * @param leaseMillis lease in ms, or {@code -1} for the watchdog
     * @param ownerId the owner
     * @return whether the member was acquired
     */
    static CompletableFuture<Boolean> tryLock(RedisLock lock, long waitMillis, long leaseMillis, long ownerId) {
        try {
            return lock.tryLockAsync(waitMillis, leaseMillis, java.util.concurrent.TimeUnit.MILLISECONDS, ownerId)
                    .toCompletableFuture();
        } catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * Starts a member's release of one hold; a call that throws becomes a failed future.
     * @param lock the member
     * @param ownerId the owner
     * @return completes when released
     */
    static CompletableFuture<Void> unlock(RedisLock lock, long ownerId) {
        try {
            CompletionStage<Void> stage = lock.unlockAsync(ownerId);
            return stage.toCompletableFuture();
        } catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * Gives back the grant an acquisition took on a member and will not use: exactly that grant's
     * lease ends, where an unlock keeps the longest lease the owner's holds were granted.
     */
    private static CompletableFuture<Void> giveBack(RedisLock lock, long ownerId) {
        if (lock instanceof AbstractRedisLock member) {
            try {
                return member.giveBackAsync(ownerId);
            } catch (RuntimeException ex) {
                return CompletableFuture.failedFuture(ex);
            }
        }
        return unlock(lock, ownerId);
    }

    /**
     * Releases one hold of the owner on each member in parallel, ignoring failures: a member that
     * was not taken has nothing to undo, and one whose server is down expires with its lease.
     * @param locks members to release
     * @param ownerId the owner
     * @return completes when every release finished, never exceptionally
     */
    static CompletableFuture<Void> releaseQuietly(List<RedisLock> locks, long ownerId) {
        return CompletableFuture.allOf(locks.stream()
                .map(lock -> giveBack(lock, ownerId).handle((ok, failure) -> {
                    Throwable cause = unwrap(failure);
                    if (cause != null && !(cause instanceof IllegalMonitorStateException)) {
                        log.debug("Releasing lock '{}' failed; it expires with its lease", lock.getName(), cause);
                    }
                    return null;
                }))
                .toArray(CompletableFuture[]::new));
    }

    /**
     * Returns the failure a future's stage reported, without the wrapping of dependent stages.
     * @param failure a failure from a stage, or {@code null}
     * @return the underlying failure, or {@code null}
     */
    public static @Nullable Throwable unwrap(@Nullable Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
