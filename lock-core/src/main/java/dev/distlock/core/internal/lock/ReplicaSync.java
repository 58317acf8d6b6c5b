package dev.distlock.core.internal.lock;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.distlock.core.LockException;

/**
 * The replica-sync guard of one acquisition ({@code replicaSync(n, timeout)}): after the acquire
 * script granted the lock, {@code WAIT n timeout} on the connection that ran it; if fewer replicas
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
    private long lastAcknowledged = -1;
    private @Nullable Throwable lastFailure;

    ReplicaSync(LockEngine engine, String name, String key) {
        this.engine = engine;
        this.name = name;
        this.key = key;
        this.replicas = engine.options().replicaSyncReplicas();
        this.timeoutMillis = engine.options().replicaSyncTimeout().toMillis();
    }

    /**
     * Confirms a grant that just happened.
     * @param undo runs the release script once
     * @return {@code null} when confirmed (or the guard is off), else ms to wait before retrying
     */
    @Nullable Long confirm(Supplier<CompletableFuture<@Nullable Long>> undo) {
        if (replicas == 0) {
            return null;
        }
        long acknowledged;
        try {
            acknowledged = engine.await(engine.call(() -> engine.connector().waitForReplicas(key, replicas, timeoutMillis)),
                    name, "wait for replicas of");
            lastFailure = null;
        }
        catch (LockException ex) {
            acknowledged = 0;
            lastFailure = ex;
        }
        if (acknowledged >= replicas) {
            lastAcknowledged = -1;
            return null;
        }
        lastAcknowledged = acknowledged;
        log.debug("Lock '{}': {} of {} replicas acknowledged within {} ms; releasing and retrying", name, acknowledged,
                replicas, timeoutMillis);
        engine.await(engine.call(undo), name, "undo unreplicated acquisition of");
        return RETRY_MILLIS;
    }

    /**
     * Notes a refusal by contention, which makes the outcome an ordinary timeout again.
     * @param ttl what the acquire script returned
     * @return {@code ttl}
     */
    Long refused(Long ttl) {
        lastAcknowledged = -1;
        lastFailure = null;
        return ttl;
    }

    /** Throws when the last attempt was refused for want of replicas, rather than by contention. */
    void throwIfShortfall() {
        if (lastAcknowledged >= 0) {
            throw new LockException("Cannot acquire lock '" + name + "': only " + lastAcknowledged + " of the " + replicas
                    + " required replicas acknowledged it within " + timeoutMillis + " ms (replicaSync); the lock was"
                    + " released again", lastFailure);
        }
    }
}
