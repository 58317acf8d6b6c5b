package dev.distlock.core.internal.lock;

import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.distlock.core.internal.pubsub.ChannelWaiters;
import dev.distlock.core.internal.pubsub.UnlockSubscriptions;
import dev.distlock.core.internal.script.LuaScript;
import dev.distlock.core.internal.script.Scripts;

/**
 * Redisson's {@code RLock}: hash at the lock key, owner field to hold count, lease as the key's
 * TTL, unlock message {@code 0} on {@code redisson_lock__channel:{name}}.
 *
 * <p>Targeted wake-ups (not in a cluster, where PUBLISH cannot tell whether anyone listened): a
 * client with a parked waiter lists itself in {@code distlock_lock_waiters:{name}} and also
 * listens on its own channel {@code distlock_lock__wake:{name}:<clientId>}. A release wakes one
 * listed client instead of every client, and broadcasts on the shared channel only when no listed
 * client listens, which is also when Redisson's waiters are told.
 */
public class ReentrantRedisLock extends AbstractRedisLock {

    private static final Logger log = LoggerFactory.getLogger(ReentrantRedisLock.class);

    /** Channel on which releases are announced. */
    protected final String channel;
    private final String waitingClients;
    private final String wakePrefix;

    /**
     * Creates the lock.
     * @param engine the client's engine
     * @param name lock name
     */
    public ReentrantRedisLock(LockEngine engine, String name) {
        super(engine, name);
        this.channel = engine.names().suffixed("redisson_lock__channel", key);
        this.waitingClients = engine.names().suffixed("distlock_lock_waiters", key);
        this.wakePrefix = engine.names().suffixed("distlock_lock__wake", key) + ":";
    }

    @Override
    protected String kind() {
        return "reentrant";
    }

    /** @return whether this kind wakes one listed client rather than broadcasting */
    protected boolean targetedWakeups() {
        return engine.connector().exactSubscriberCounts();
    }

    @Override
    protected CompletableFuture<@Nullable Long> acquire(long leaseMillis, long ownerId) {
        return acquire(leaseMillis, ownerId, 0, null);
    }

    @Override
    protected CompletableFuture<@Nullable Long> acquire(long leaseMillis, long ownerId, long waitMillis,
            @Nullable ChannelWaiters waiting) {
        // Only an owner this client knows to hold the lock can be re-entering; everyone else skips
        // the owner check. An acquisition whose reply was lost is then not mistaken for a re-entry.
        boolean mayReenter = engine.holds().get(key, ownerField(ownerId)) != null;
        String attemptId = key + '\n' + ownerField(ownerId);
        Set<String> uncertain = engine.uncertainAcquisitions();
        String mode = mayReenter ? "1" : uncertain.contains(attemptId) ? "2" : "0";
        boolean listed = waiting != null && targetedWakeups();
        String register = listed ? engine.clientId() : "";
        String unregister = listed && waiting.waiting() <= 1 ? engine.clientId() : "";
        CompletableFuture<@Nullable Long> reply = engine.scripts().<@Nullable Long>run(Scripts.REENTRANT_ACQUIRE,
                new String[] {key, waitingClients}, Long.toString(leaseMillis), ownerField(ownerId),
                mode, register, unregister).whenComplete((ttl, failure) -> {
                    // A failed call may still have run: the next attempt adopts what it took.
                    if (failure != null) {
                        uncertain.add(attemptId);
                    }
                    else {
                        uncertain.remove(attemptId);
                    }
                });
        if (unregister.isEmpty()) {
            return reply;
        }
        return reply.thenApply(ttl -> {
            if (ttl == null && waiting.waiting() > 1) {
                // Another local waiter joined meanwhile and its listing may have been removed with ours.
                engine.connector().commands().sadd(waitingClients, engine.clientId());
            }
            return ttl;
        });
    }

    @Override
    protected CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId) {
        return release(leaseMillis, ownerId, java.util.UUID.randomUUID().toString());
    }

    @Override
    protected CompletableFuture<@Nullable Long> release(long leaseMillis, long ownerId, String requestId) {
        String latch = engine.names().suffixed("redisson_unlock_latch", key) + ":" + requestId;
        return engine.scripts().run(Scripts.REENTRANT_RELEASE, new String[] {key, channel, latch, waitingClients},
                UnlockSubscriptions.WAKE_ONE, Long.toString(leaseMillis), ownerField(ownerId),
                Long.toString(engine.unlockLatchMillis()), targetedWakeups() ? wakePrefix : "");
    }

    @Override
    protected boolean idempotentRelease() {
        return true;
    }

    @Override
    protected LuaScript renewScript() {
        return Scripts.RENEW;
    }

    @Override
    protected String wakeChannel(long ownerId) {
        return channel;
    }

    @Override
    protected @Nullable String wakeAlias(long ownerId) {
        return targetedWakeups() ? wakePrefix + engine.clientId() : null;
    }

    @Override
    protected @Nullable Runnable unclaimedWake() {
        return targetedWakeups() ? this::passWakeup : null;
    }

    @Override
    protected void abandonWait(long ownerId) {
        ChannelWaiters waiters = engine.subscriptions().waitersOf(channel);
        if (!targetedWakeups() || waiters != null && waiters.waiting() > 1) {
            return;
        }
        try {
            engine.await(engine.call(() -> engine.connector().commands().srem(waitingClients, engine.clientId())
                    .toCompletableFuture()), name, "leave the waiters of");
        }
        catch (RuntimeException ex) {
            // Harmless: a wake-up sent to a client that no longer waits is passed on.
            log.debug("Could not unlist client {} from the waiters of lock '{}'", engine.clientId(), name, ex);
        }
    }

    private void passWakeup() {
        engine.call(() -> engine.scripts().<Long>run(Scripts.REENTRANT_PASS_WAKEUP,
                new String[] {key, channel, waitingClients}, UnlockSubscriptions.WAKE_ONE, wakePrefix, engine.clientId()))
                .exceptionally(failure -> {
                    log.debug("Could not pass on a wake-up for lock '{}'", name, failure);
                    return null;
                });
    }

    @Override
    protected CompletableFuture<Boolean> forceRelease() {
        return engine.scripts().<Long>run(Scripts.FORCE_RELEASE, new String[] {key, channel},
                UnlockSubscriptions.WAKE_ONE).thenApply(deleted -> deleted != null && deleted == 1);
    }
}
