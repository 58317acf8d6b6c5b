package dev.distlock.core.internal.composite;

import dev.distlock.core.RedisLock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inspection methods of a red lock, answered by a quorum of masters. The members' inspection
 * methods block, so the masters are asked on threads of their own, all at once: a master that is
 * down costs one command timeout, not one per master. Acquiring and releasing never use them.
 */
public final class RedLockQueries {

    private static final Logger log = LoggerFactory.getLogger(RedLockQueries.class);

    private static final AtomicInteger THREADS = new AtomicInteger();

    private static final ExecutorService MEMBER_CALLS =
            new ThreadPoolExecutor(0, Integer.MAX_VALUE, 5, TimeUnit.SECONDS, new SynchronousQueue<>(), runnable -> {
                Thread thread = new Thread(runnable, "distlock-member-" + THREADS.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });

    private final List<RedisLock> locks;
    private final int quorum;
    private final String name;

    /**
     * Creates the queries of one red lock.
     * @param locks one member per master
     * @param quorum how many masters must agree
     * @param name the red lock's name, for logs
     */
    public RedLockQueries(List<RedisLock> locks, int quorum, String name) {
        this.locks = locks;
        this.quorum = quorum;
        this.name = name;
    }

    /** @return whether at least a quorum of masters report the lock held */
    public boolean isLocked() {
        return count(RedisLock::isLocked) >= quorum;
    }

    /**
     * Returns whether at least a quorum of masters report the lock held by the owner.
     * @param ownerId the owner
     * @return whether held
     */
    public boolean isHeldBy(long ownerId) {
        return count(lock -> lock.isHeldBy(ownerId)) >= quorum;
    }

    /** @return the hold count that at least a quorum of masters report for the calling thread */
    public int holdCount() {
        // Asked in turn on the calling thread: a member's hold count is that of the calling thread.
        List<Long> values = new ArrayList<>();
        for (RedisLock lock : locks) {
            try {
                values.add((long) lock.getHoldCount());
            } catch (RuntimeException ex) {
                values.add(0L);
            }
        }
        return (int) quorumValue(values);
    }

    /** @return the remaining lease that at least a quorum of masters still have, or {@code -2} */
    public long remainTimeToLive() {
        return quorumValue(onEach(RedisLock::remainTimeToLive).stream()
                .map(ttl -> ttl == null ? -2L : ttl)
                .toList());
    }

    /** @return whether the lock was deleted on any master */
    public boolean forceUnlock() {
        return onEach(RedisLock::forceUnlock).stream().anyMatch(Boolean.TRUE::equals);
    }

    /** @return each master's answer, {@code null} where it failed */
    private <T> List<@Nullable T> onEach(Function<RedisLock, T> query) {
        List<CompletableFuture<T>> calls = new ArrayList<>(locks.size());
        for (RedisLock lock : locks) {
            calls.add(CompletableFuture.supplyAsync(() -> query.apply(lock), MEMBER_CALLS));
        }
        List<@Nullable T> answers = new ArrayList<>(locks.size());
        for (CompletableFuture<T> call : calls) {
            answers.add(Await.uninterruptibly(
                    call.handle((answer, failure) -> {
                        if (failure != null) {
                            log.debug("Red lock {}: a master did not answer", name, failure);
                            return null;
                        }
                        return answer;
                    }),
                    "inspect red lock " + name));
        }
        return answers;
    }

    private int count(Function<RedisLock, Boolean> test) {
        // A master that is down does not vote.
        return (int) onEach(test).stream().filter(Boolean.TRUE::equals).count();
    }

    private long quorumValue(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(Comparator.reverseOrder());
        return sorted.get(quorum - 1);
    }
}
