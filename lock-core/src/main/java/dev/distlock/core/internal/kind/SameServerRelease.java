package dev.distlock.core.internal.kind;

import dev.distlock.core.LockException;
import dev.distlock.core.internal.acquire.Release;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.script.MultiRelease;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One unlock of the members of a {@link SameServerMembers} group in one script. Each member's
 * bookkeeping is its own {@link Release}'s (the hold marked as being released before the script
 * is sent, the lease its remaining holds call for, the outcome, holds Redis still counts); only the
 * script is shared. A member the script could not release (its key holds another type) fails on its
 * own, as its own unlock would, and the script still releases the others. A release whose reply was
 * lost is sent again with the same request numbers within one command timeout: the members' unlock
 * latches replay the first outcomes.
 */
final class SameServerRelease {

    private final List<ReentrantRedisLock> members;
    private final LockEngine engine;
    private final String name;
    private final List<Release> releases = new ArrayList<>();
    private final MultiRelease script;

    /**
     * Call it on the unlocking thread: it may be the owner, which the error messages then name.
     * @param givingBack whether it gives back the grants an acquisition took and will not use
     *     ({@link Release#givingBack}) rather than unlocks
     */
    SameServerRelease(
            List<ReentrantRedisLock> members, LockEngine engine, String name, long ownerId, boolean givingBack) {
        this.members = members;
        this.engine = engine;
        this.name = name;
        for (ReentrantRedisLock member : members) {
            releases.add(givingBack ? Release.givingBack(member, ownerId) : new Release(member, ownerId));
        }
        this.script = script(ownerId);
    }

    private MultiRelease script(long ownerId) {
        List<String> keys = new ArrayList<>(members.size());
        List<Long> leases = new ArrayList<>(members.size());
        List<String> fields = new ArrayList<>(members.size());
        List<String> requests = new ArrayList<>(members.size());
        List<String> latches = new ArrayList<>(0);
        List<String> records = new ArrayList<>(0);
        for (int i = 0; i < members.size(); i++) {
            ReentrantRedisLock member = members.get(i);
            keys.add(member.lockKey());
            leases.add(releases.get(i).lease());
            fields.add(member.field(ownerId));
            String request = engine.newRequestId();
            requests.add(request);
            if (member.declaresCompanions()) {
                latches.add(member.unlockLatch(ownerId, request));
                records.add(member.grantRecord(ownerId));
            }
        }
        latches.addAll(records);
        return new MultiRelease(
                keys, engine.unlockLatchMillis(), members.get(0).wakeFlags(), leases, fields, requests, latches);
    }

    /** @return completes with each member's failure, in order ({@code null} where released) */
    CompletableFuture<List<@Nullable Throwable>> run() {
        releases.forEach(Release::begin);
        CompletableFuture<List<Object>> reply = engine.connector().commandsReady()
                ? send(engine.replies().deadline())
                : engine.calls()
                        .connected(name, "release")
                        .thenCompose(connected -> send(engine.replies().deadline()));
        return reply.handle(this::finish).thenCompose(done -> done);
    }

    private CompletableFuture<List<@Nullable Throwable>> finish(
            @Nullable List<Object> outcomes, @Nullable Throwable failure) {
        List<CompletableFuture<@Nullable Throwable>> finished = new ArrayList<>(releases.size());
        for (int i = 0; i < releases.size(); i++) {
            Object reply = failure != null || outcomes == null ? null : outcomes.get(i);
            Long outcome = reply instanceof Long released && released >= 0 ? released : null;
            @Nullable Throwable memberFailure = reply instanceof String error ? memberFailure(i, error) : failure;
            finished.add(releases.get(i).finish(outcome, memberFailure).handle((ok, error) -> error));
        }
        return CompletableFuture.allOf(finished.toArray(CompletableFuture[]::new))
                .thenApply(all -> finished.stream().map(CompletableFuture::join).toList());
    }

    /** The failure of one member the script could not release, named as its own unlock names it. */
    private LockException memberFailure(int member, String error) {
        return new LockException("Cannot release lock '" + members.get(member).getName() + "' (member of multi lock "
                + name + ") on " + engine.connector().describe() + ": " + error);
    }

    /** Sends the script, and once more if its reply was lost, both within one command timeout. */
    private CompletableFuture<List<Object>> send(long deadline) {
        return engine.replies()
                .within(engine.calls().call(() -> script.run(engine.scripts())), name, "release", deadline)
                .handle((outcomes, failure) -> {
                    if (failure == null) {
                        return CompletableFuture.completedFuture(outcomes);
                    }
                    if (engine.isClosed() || !engine.replies().before(deadline)) {
                        return CompletableFuture.<List<Object>>failedFuture(failure);
                    }
                    // The reply may have been lost after the script ran; the latches make the retry replay it.
                    return engine.replies()
                            .within(engine.calls().call(() -> script.run(engine.scripts())), name, "release", deadline);
                })
                .thenCompose(next -> next);
    }
}
