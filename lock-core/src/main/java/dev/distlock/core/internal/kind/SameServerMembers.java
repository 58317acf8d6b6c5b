package dev.distlock.core.internal.kind;

import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.pubsub.ChannelWaiters;
import dev.distlock.core.internal.script.MultiAcquire;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The members of a multi lock that one script takes together: plain reentrant locks of one client
 * whose keys live on one server (in a cluster, in one slot). One attempt takes every one of them or
 * none ({@code multi-acquire}); one release gives back one hold of each ({@code multi-release}).
 * The holds are recorded exactly as each member's own acquisition records them (renewal by the
 * watchdog in its batches, unlock bookkeeping, listeners), and an attempt whose reply is lost is
 * marked on every member it names, so that the clean-up after it releases only what it took.
 */
public final class SameServerMembers {

    /** Longest park when the holder's lease is unknown, as a single lock's waiter parks. */
    private static final long UNKNOWN_TTL_PARK_MILLIS = 1000;

    private final List<ReentrantRedisLock> members;
    private final LockEngine engine;
    private final String name;

    private SameServerMembers(List<ReentrantRedisLock> members) {
        this.members = List.copyOf(members);
        this.engine = members.get(0).lockEngine();
        this.name = members.stream().map(RedisLock::getName).collect(Collectors.joining(", ", "[", "]"));
    }

    /**
     * Groups a multi lock's members by the script that can take them: one group per client and
     * cluster slot, in the order of their first member.
     * @param ordered the members in canonical order
     * @return the groups, or {@code null} when one script per server cannot take them all: a member of
     *     another kind, a member named twice, or a client that confirms grants on replicas
     */
    public static @Nullable List<SameServerMembers> group(List<RedisLock> ordered) {
        record GroupKey(LockEngine engine, int slot) {}
        record MemberKey(LockEngine engine, String key) {}
        Map<GroupKey, List<ReentrantRedisLock>> groups = new LinkedHashMap<>();
        Set<MemberKey> seen = new HashSet<>();
        for (RedisLock lock : ordered) {
            // Subclasses (fenced) run scripts of their own; views made by withListener keep the class.
            if (lock.getClass() != ReentrantRedisLock.class) {
                return null;
            }
            ReentrantRedisLock member = (ReentrantRedisLock) lock;
            LockEngine engine = member.lockEngine();
            if (engine.options().replicaSyncReplicas() > 0 || !seen.add(new MemberKey(engine, member.lockKey()))) {
                return null;
            }
            groups.computeIfAbsent(
                            new GroupKey(engine, engine.connector().batchGroup(member.lockKey())),
                            k -> new ArrayList<>())
                    .add(member);
        }
        return groups.values().stream().map(SameServerMembers::new).toList();
    }

    /**
     * A refused attempt: the first member held by someone else.
     * @param member its index in this group
     * @param ttlMillis its holder's remaining lease in ms, {@code -1} when it has none
     */
    public record Refusal(int member, long ttlMillis) {}

    /**
     * Tries once to take every member. Cancelling the returned future before the reply counts the
     * reply as lost: the owner's clean-up ({@link #ended}) then releases what it may have taken.
     * @param leaseMillis lease in ms, or {@link LockEngine#WATCHDOG}
     * @param ownerId owner
     * @param waiting whether the caller waits, so that a refusal lists its client as a waiter
     * @param waitDeadline when the caller's wait ends ({@link System#nanoTime()}, {@link Long#MAX_VALUE} for
     *     none): the attempt may wait that long for the connection, and at least one command timeout
     * @param wanted whether the caller still waits for the attempt
     * @param start when the acquisition started ({@link System#nanoTime()}), for the listeners
     * @return {@code null} when every member is held now (and recorded), else the refusal; fails
     *     when Redis did not answer
     */
    public CompletableFuture<@Nullable Refusal> tryOnce(
            long leaseMillis, long ownerId, boolean waiting, long waitDeadline, BooleanSupplier wanted, long start) {
        long now = System.nanoTime();
        long connectBy = waitDeadline == Long.MAX_VALUE
                ? now + TimeUnit.DAYS.toNanos(365)
                : Math.max(now + engine.options().commandTimeout().toNanos(), waitDeadline);
        long lease = leaseMillis == LockEngine.WATCHDOG ? engine.watchdogMillis() : leaseMillis;
        String attemptId = engine.newRequestId();
        CompletableFuture<List<Long>> toCaller = new CompletableFuture<>();
        StringBuilder modes = new StringBuilder(members.size());
        List<String> keys = new ArrayList<>(members.size());
        List<String> fields = new ArrayList<>(members.size());
        List<String> records = new ArrayList<>(0);
        for (ReentrantRedisLock member : members) {
            modes.append(member.batchMode(ownerId, attemptId, toCaller));
            keys.add(member.lockKey());
            fields.add(member.field(ownerId));
            if (member.declaresCompanions()) {
                records.add(member.grantRecord(ownerId));
            }
        }
        boolean listed = waiting && members.get(0).targetedWakeups();
        MultiAcquire script = new MultiAcquire(
                keys, lease, attemptId, modes.toString(), listed ? engine.listingSlackText() : null, fields, records);
        long[] sent = new long[1];
        CompletableFuture<List<Long>> reply = engine.calls()
                .call(
                        () -> {
                            sent[0] = System.nanoTime();
                            return script.run(engine.scripts());
                        },
                        connectBy,
                        wanted);
        engine.replies()
                .within(reply, name, "acquire", Math.max(engine.replies().deadline(), connectBy))
                .whenComplete((answer, failure) -> {
                    if (failure != null) {
                        // The script may still have run: the marks stay, the clean-up names this attempt.
                        toCaller.completeExceptionally(failure);
                    } else {
                        toCaller.complete(answer);
                    }
                });
        // Completed only here, and cancelled by a caller that gives up: a grant that the cancel beat is
        // recorded and then given back the usual way, so that no recorded hold is left behind.
        CompletableFuture<@Nullable Refusal> outcome = new CompletableFuture<>();
        toCaller.whenComplete((answer, failure) -> {
            if (failure != null) {
                outcome.completeExceptionally(failure);
                return;
            }
            Refusal refusal;
            try {
                refusal = granted(answer, leaseMillis, ownerId, sent[0], start);
            } catch (RuntimeException ex) {
                outcome.completeExceptionally(ex);
                return;
            }
            if (!outcome.complete(refusal) && refusal == null) {
                release(ownerId);
            }
        });
        outcome.whenComplete((ignored, failure) -> {
            if (outcome.isCancelled()) {
                toCaller.cancel(false);
            }
        });
        return outcome;
    }

    private @Nullable Refusal granted(List<Long> answer, long leaseMillis, long ownerId, long sentNanos, long start) {
        if (answer != null && answer.size() == 2) {
            return new Refusal((int) (answer.get(0) - 1), answer.get(1));
        }
        engine.calls().ensureOpen(name);
        for (ReentrantRedisLock member : members) {
            member.registerHold(leaseMillis, ownerId, start, sentNanos, true);
        }
        return null;
    }

    /**
     * Ends an acquisition of the members, whatever its outcome: see
     * {@link dev.distlock.core.internal.acquire.LostGrants#ended}.
     * @param ownerId owner
     * @param acquired whether the owner holds every member now
     * @param leaseMillis lease in ms, or {@link LockEngine#WATCHDOG}
     */
    public void ended(long ownerId, boolean acquired, long leaseMillis) {
        for (ReentrantRedisLock member : members) {
            member.acquisitionEnded(ownerId, acquired, leaseMillis);
        }
    }

    /**
     * Joins the wake-up channel of a member that refused an attempt, where its release is heard.
     * @param member index in this group
     * @param ownerId owner
     * @return the channel's waiters, or {@code null} when pub/sub cannot be used now (bounded parks)
     */
    public CompletableFuture<@Nullable ChannelWaiters> join(int member, long ownerId) {
        return engine.calls().whenConnected(true, () -> {
            try {
                return CompletableFuture.completedFuture(members.get(member).join(ownerId));
            } catch (RuntimeException ex) {
                engine.calls().failIfClosed(name, ex);
                return CompletableFuture.completedFuture(null);
            }
        });
    }

    /**
     * Waits for a joined channel's subscription, at most a command timeout and the remaining wait.
     * @param joined the channel's waiters
     * @param remainingMillis the caller's remaining wait
     * @return completes when subscribed or when the bound passes
     */
    public CompletableFuture<?> subscribed(ChannelWaiters joined, long remainingMillis) {
        long bound = Math.min(engine.options().commandTimeout().toMillis(), remainingMillis);
        CompletableFuture<Void> timeUp = engine.calls().delay(bound);
        return CompletableFuture.anyOf(joined.ready(), timeUp).whenComplete((ignored, error) -> timeUp.complete(null));
    }

    /**
     * Parks until a release on the channel or the holder's lease ends.
     * @param channel the joined channel, or {@code null}: then no wake-up can come
     * @param ttlMillis the holder's remaining lease, {@code -1} unknown
     * @param remainingMillis the caller's remaining wait
     * @return completes with whether a wake-up ended the park; cancelling it unparks
     */
    public CompletableFuture<Boolean> park(@Nullable ChannelWaiters channel, long ttlMillis, long remainingMillis) {
        long nap = ttlMillis < 0
                ? Math.min(UNKNOWN_TTL_PARK_MILLIS, remainingMillis)
                : Math.min(Math.max(ttlMillis, 1), remainingMillis);
        if (channel != null) {
            return channel.park(nap, engine.scheduler());
        }
        return engine.calls().delay(Math.min(nap, UNKNOWN_TTL_PARK_MILLIS)).thenApply(done -> false);
    }

    /**
     * Tells a member's listeners that the owner stopped waiting for it.
     * @param member index in this group
     * @param ownerId owner
     * @param start when the acquisition started ({@link System#nanoTime()})
     */
    public void timedOut(int member, long ownerId, long start) {
        members.get(member).events().timedOut(ownerId, start);
    }

    /**
     * Releases one hold of the owner on every member in one script; see {@link SameServerRelease}.
     * Call it on the unlocking thread.
     * @param ownerId owner
     * @return completes with each member's failure, in order ({@code null} where released); never
     *     exceptionally
     */
    public CompletableFuture<List<@Nullable Throwable>> release(long ownerId) {
        return new SameServerRelease(members, engine, name, ownerId, false).run();
    }

    /**
     * Gives back, in one script, the grants an acquisition took on every member and will not use:
     * exactly their leases end (see {@link dev.distlock.core.internal.acquire.Release#givingBack}).
     * @param ownerId owner
     * @return as {@link #release(long)}
     */
    public CompletableFuture<List<@Nullable Throwable>> giveBack(long ownerId) {
        return new SameServerRelease(members, engine, name, ownerId, true).run();
    }

    /** @return the closed-client failure when this group's client was closed, else {@code null} */
    public @Nullable LockException closed() {
        return engine.isClosed() ? engine.calls().closedException(name, null) : null;
    }

    /** @return the members' names, e.g. {@code [a, b]} */
    public String name() {
        return name;
    }
}
