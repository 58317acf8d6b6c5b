package dev.distlock.core.internal.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedisLock;

/**
 * What the multi lock and the red lock share: member checks, ordering, releasing a set of members
 * and the uninterruptible wait of {@code lock()}.
 */
public final class CompositeLocks {

    private static final Logger log = LoggerFactory.getLogger(CompositeLocks.class);

    private static final AtomicInteger MEMBER_THREADS = new AtomicInteger();

    private static final ExecutorService MEMBER_CALLS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 5,
            TimeUnit.SECONDS, new SynchronousQueue<>(), runnable -> {
                Thread thread = new Thread(runnable, "distlock-member-" + MEMBER_THREADS.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });

    private CompositeLocks() {
    }

    /**
     * Checks the members of a composite lock.
     * @param kind {@code MultiLock} or {@code RedLock}, for messages
     * @param locks the members
     * @return an immutable copy
     */
    public static List<RedisLock> requireMembers(String kind, RedisLock[] locks) {
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
        sorted.sort((a, b) -> sortKey(a).compareTo(sortKey(b)));
        return List.copyOf(sorted);
    }

    private static String sortKey(RedisLock lock) {
        if (lock instanceof AbstractRedisLock redisLock) {
            return redisLock.key + "@" + redisLock.engine.connector().describe();
        }
        return lock.getName();
    }

    /**
     * Returns a reversed copy, for releasing in the opposite order of taking.
     * @param locks members
     * @return the members, last first
     */
    public static List<RedisLock> reversed(List<RedisLock> locks) {
        List<RedisLock> copy = new ArrayList<>(locks);
        java.util.Collections.reverse(copy);
        return copy;
    }

    /**
     * Returns the lease a member gives its holds: the lease asked for, or its client's watchdog
     * timeout.
     * @param lock a member
     * @param leaseMillis lease in ms, or {@code -1} for the watchdog
     * @return lease in ms
     */
    public static long effectiveLeaseMillis(RedisLock lock, long leaseMillis) {
        if (leaseMillis != LockEngine.WATCHDOG) {
            return leaseMillis;
        }
        if (lock instanceof AbstractRedisLock redisLock) {
            return redisLock.engine.watchdogMillis();
        }
        return LockClientOptions.DEFAULT_WATCHDOG_TIMEOUT.toMillis();
    }

    /**
     * Resets the lease of members the owner holds, with each member's owner-checked renewal
     * script, so that a member taken early in a long acquisition is held for the whole lease from
     * now on. A member held by someone else (its hold lapsed and was taken over) is left alone:
     * a plain {@code PEXPIRE} would extend the other owner's lease.
     * @param locks members the owner acquired
     * @param leaseMillis lease in ms, or {@code -1} for the watchdog
     * @param ownerId the owner
     * @return whether the owner still held every member (members of other kinds are trusted)
     */
    public static boolean reExpire(List<RedisLock> locks, long leaseMillis, long ownerId) {
        List<CompletableFuture<List<Long>>> replies = new ArrayList<>(locks.size());
        for (RedisLock lock : locks) {
            replies.add(lock instanceof AbstractRedisLock member ? renew(member, leaseMillis, ownerId) : null);
        }
        boolean allHeld = true;
        for (int i = 0; i < locks.size(); i++) {
            CompletableFuture<List<Long>> reply = replies.get(i);
            if (reply == null) {
                continue;
            }
            AbstractRedisLock member = (AbstractRedisLock) locks.get(i);
            List<Long> renewed = member.engine.await(reply, member.name, "re-expire");
            if (renewed == null || renewed.isEmpty() || renewed.get(0) == null || renewed.get(0) != 1L) {
                log.debug("Lock '{}' was lost by owner {} while the other members were acquired", member.name, ownerId);
                allHeld = false;
            }
        }
        return allHeld;
    }

    private static CompletableFuture<List<Long>> renew(AbstractRedisLock member, long leaseMillis, long ownerId) {
        long lease = leaseMillis == LockEngine.WATCHDOG ? member.engine.watchdogMillis() : leaseMillis;
        String field = member.ownerField(ownerId);
        return member.engine.call(() -> member.engine.scripts().<List<Long>>run(member.renewScript(),
                new String[] {member.key}, Long.toString(lease), field));
    }

    /**
     * Releases one hold of the owner on each member, ignoring failures (a member that was not
     * taken, or whose server is down, expires with its lease).
     * @param locks members to release
     * @param ownerId the owner
     */
    public static void releaseQuietly(List<RedisLock> locks, long ownerId) {
        for (RedisLock lock : locks) {
            try {
                lock.unlock(ownerId);
            }
            catch (IllegalMonitorStateException ex) {
                // Not held by this owner: nothing to undo.
            }
            catch (RuntimeException ex) {
                log.debug("Releasing lock '{}' failed; it expires with its lease", lock.getName(), ex);
            }
        }
    }

    /**
     * Returns the threads that run member calls of a red lock in parallel: daemon threads, made on
     * demand and ended after a few idle seconds.
     * @return the executor
     */
    public static Executor memberCalls() {
        return MEMBER_CALLS;
    }

    /**
     * Starts a single attempt ({@code tryLock} without waiting) on a member, on a thread of
     * {@link #memberCalls()}.
     * @param lock the member
     * @param leaseMillis lease in ms, or {@code -1} for the watchdog
     * @param ownerId the owner
     * @return whether the member granted it; fails with the member's failure
     */
    public static CompletableFuture<Boolean> tryOnceAsync(RedisLock lock, long leaseMillis, long ownerId) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return lock.tryLock(0, leaseMillis, TimeUnit.MILLISECONDS, ownerId);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new java.util.concurrent.CompletionException(ex);
            }
        }, MEMBER_CALLS);
    }

    /**
     * Releases one hold of the owner on each member in parallel, like {@link #releaseQuietly}.
     * @param locks members to release
     * @param ownerId the owner
     * @return completes when every release finished, never exceptionally
     */
    public static CompletableFuture<Void> releaseAsync(List<RedisLock> locks, long ownerId) {
        return CompletableFuture.allOf(locks.stream()
                .map(lock -> CompletableFuture.runAsync(() -> releaseQuietly(List.of(lock), ownerId), MEMBER_CALLS)
                        .exceptionally(ex -> null))
                .toArray(CompletableFuture[]::new));
    }

    /**
     * Runs a wait-forever acquisition, deferring interrupts until it succeeds.
     * @param acquisition the interruptible acquisition, returning whether it succeeded
     */
    public static void lockUninterruptibly(Acquisition acquisition) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (acquisition.tryAcquire()) {
                        return;
                    }
                }
                catch (InterruptedException ex) {
                    interrupted = true;
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Throws the first failure with the others suppressed, if there was any.
     * @param failures failures in the order they happened
     */
    public static void throwAll(List<RuntimeException> failures) {
        if (failures.isEmpty()) {
            return;
        }
        RuntimeException first = failures.get(0);
        failures.subList(1, failures.size()).forEach(first::addSuppressed);
        throw first;
    }

    /**
     * Sleeps for a random time in {@code [min, max)} ms but at most until the deadline.
     * @param minMillis lower bound
     * @param maxMillis upper bound
     * @param deadline {@link System#nanoTime()} deadline, or {@link Long#MAX_VALUE}
     * @throws InterruptedException if interrupted
     */
    public static void backOff(long minMillis, long maxMillis, long deadline) throws InterruptedException {
        long pause = TimeUnit.MILLISECONDS.toNanos(java.util.concurrent.ThreadLocalRandom.current().nextLong(minMillis, maxMillis));
        long left = deadline - System.nanoTime();
        long nanos = Math.min(pause, Math.max(0, left));
        if (nanos > 0) {
            TimeUnit.NANOSECONDS.sleep(nanos);
        }
    }

    /** An interruptible acquisition attempt. */
    @FunctionalInterface
    public interface Acquisition {

        /**
         * Tries to acquire.
         * @return whether acquired
         * @throws InterruptedException if interrupted
         */
        boolean tryAcquire() throws InterruptedException;
    }

}
