package dev.distlock.core.internal.acquire;

import dev.distlock.core.LockException;
import dev.distlock.core.internal.connection.SyncedConnection;
import dev.distlock.core.internal.engine.LockEngine;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica-sync guard of one acquisition ({@code replicaSync(n, timeout)}): the acquire script
 * runs on a connection lent to this attempt alone (to the key's master), and after it granted the
 * lock, {@code WAIT n timeout} runs on that same connection; if fewer replicas
 * acknowledged, the grant is undone at once, because a failover now could promote a replica that
 * never saw it and hand the lock to a second owner. The caller then retries within its wait, and
 * if the wait ends this way, {@link #throwIfShortfall()} reports it.
 */
final class ReplicaSync {

    /** Pause before retrying after a shortfall; the WAIT itself already took up to its timeout. */
    static final long RETRY_MILLIS = 50;

    private static final Logger log = LoggerFactory.getLogger(ReplicaSync.class);

    private final LockEngine engine;
    private final String name;
    private final String key;
    private final int replicas;
    private final long timeoutMillis;
    private volatile long lastAcknowledged = -1;
    private volatile @Nullable Throwable lastFailure;
    /** The connection lent to the current attempt, until its outcome is known. */
    private final AtomicReference<@Nullable SyncedConnection> lent = new AtomicReference<>();

    ReplicaSync(LockEngine engine, String name, String key) {
        this.engine = engine;
        this.name = name;
        this.key = key;
        this.replicas = engine.options().replicaSyncReplicas();
        this.timeoutMillis = engine.options().replicaSyncTimeout().toMillis();
    }

    /**
     * Starts one run of the acquire script. With the guard on, it runs on a connection lent for
     * this attempt alone, where {@link #confirm} then runs {@code WAIT}: the one connection every
     * other lock shares is never blocked by it, and the {@code WAIT} counts this very write.
     * @param acquire starts the acquire script
     * @return the script's reply
     */
    CompletableFuture<@Nullable Long> acquire(Supplier<CompletableFuture<@Nullable Long>> acquire) {
        if (replicas == 0) {
            return acquire.get();
        }
        SyncedConnection previous = lent.getAndSet(null);
        if (previous != null) {
            previous.discard();
        }
        SyncedConnection connection = engine.connector().borrowSynced(key);
        lent.set(connection);
        CompletableFuture<@Nullable Long> reply;
        try {
            reply = connection.route(acquire);
        } catch (RuntimeException ex) {
            giveUp(connection);
            throw ex;
        }
        // A failed or abandoned call may still be answered later on this connection: close it.
        reply.whenComplete((ttl, failure) -> {
            if (failure != null) {
                giveUp(connection);
            }
        });
        return reply;
    }

    private void giveUp(SyncedConnection connection) {
        lent.compareAndSet(connection, null);
        connection.discard();
    }

    /** @return whether the guard is on; its attempts open connections of their own, which may block */
    boolean enabled() {
        return replicas > 0;
    }

    /**
     * Confirms a grant that just happened.
     * @param undo runs the release script once
     * @return {@code null} when confirmed (or the guard is off), else ms to wait before retrying
     */
    CompletableFuture<@Nullable Long> confirm(Supplier<CompletableFuture<@Nullable Long>> undo) {
        if (replicas == 0) {
            return CompletableFuture.completedFuture(null);
        }
        SyncedConnection connection = lent.getAndSet(null);
        CompletableFuture<Long> acknowledged = connection == null
                ? CompletableFuture.failedFuture(
                        new LockException("Cannot wait for replicas of lock '" + name + "': its connection was closed"))
                : engine.replies()
                        .within(
                                engine.calls().call(() -> connection.waitForReplicas(replicas, timeoutMillis)),
                                name,
                                "wait for replicas of",
                                engine.replies().deadline());
        return acknowledged
                .handle((count, failure) -> {
                    long acks;
                    if (failure == null) {
                        connection.giveBack();
                        lastFailure = null;
                        acks = count;
                    } else {
                        if (connection != null) {
                            connection.discard();
                        }
                        lastFailure = failure;
                        acks = 0;
                    }
                    if (acks >= replicas) {
                        lastAcknowledged = -1;
                        return CompletableFuture.<@Nullable Long>completedFuture(null);
                    }
                    lastAcknowledged = acks;
                    log.debug(
                            "Lock '{}': {} of {} replicas acknowledged within {} ms; releasing and retrying",
                            name,
                            acks,
                            replicas,
                            timeoutMillis);
                    return engine.replies()
                            .within(
                                    engine.calls().call(undo),
                                    name,
                                    "undo unreplicated acquisition of",
                                    engine.replies().deadline())
                            .thenApply(released -> (@Nullable Long) RETRY_MILLIS);
                })
                .thenCompose(next -> next);
    }

    /**
     * Notes a refusal by contention, which makes the outcome an ordinary timeout again.
     * @param ttl what the acquire script returned
     * @return {@code ttl}
     */
    Long refused(Long ttl) {
        SyncedConnection connection = lent.getAndSet(null);
        if (connection != null) {
            connection.giveBack();
        }
        lastAcknowledged = -1;
        lastFailure = null;
        return ttl;
    }

    /** Throws when the last attempt was refused for want of replicas, rather than by contention. */
    void throwIfShortfall() {
        if (lastAcknowledged >= 0) {
            throw new LockException(
                    "Cannot acquire lock '" + name + "': only " + lastAcknowledged + " of the " + replicas
                            + " required replicas acknowledged it within " + timeoutMillis
                            + " ms (replicaSync); the lock was"
                            + " released again",
                    lastFailure);
        }
    }
}
