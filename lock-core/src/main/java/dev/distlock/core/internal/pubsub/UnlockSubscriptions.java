package dev.distlock.core.internal.pubsub;

import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Subscriptions to unlock channels over one shared pub/sub connection, reference-counted per
 * channel. A channel stays subscribed for a while after its last waiter leaves, so a lock that is
 * contended again soon does not pay a SUBSCRIBE/UNSUBSCRIBE pair per wait.
 *
 * <p>A subscription is never assumed: a SUBSCRIBE that fails (no channel permission, connection
 * down) is retried while anyone waits on the channel, after a delay that doubles with each failure
 * up to 2 s, and so is one the server dropped (a Cluster slot that moved) or one that a reconnect had
 * to restore, whether of the shared connection or of a Cluster node's connection that sharded
 * subscriptions went to. Messages published while a channel was
 * not subscribed are lost, so every re-subscription wakes the channel's waiters to re-check the lock.
 *
 * <p>In a Redis 7+ Cluster the channels are sharded ({@code SSUBSCRIBE}, routed to the node that
 * serves the channel's slot), as Redisson's are there, so that either library's releases wake the
 * other's waiters. A sharded subscription lives on one node: when the slot moves to another node (its
 * master failed and a replica was promoted, or the slot migrated) the releases are published there
 * and the old node's connection may never come back, so the channel is subscribed anew on the node
 * now serving it, and its waiters re-check the lock.
 *
 * <p>This class opens the connection, sends the commands and reacts to their replies and to what the
 * server reports, under its monitor; which channels are subscribed is kept by {@link
 * SubscribedChannels}, and where each subscription stands by its {@link ChannelSubscription}.
 */
public final class UnlockSubscriptions {

    /** Message that wakes one waiter. */
    public static final String WAKE_ONE = "0";

    /** Message that wakes every waiter (read-write lock). */
    public static final String WAKE_ALL = "1";

    /** Delay before a failed subscription is tried again; it doubles with each failure in a row. */
    static final Duration RETRY_DELAY = Duration.ofMillis(500);

    /** The longest delay between attempts of a subscription that keeps failing. */
    static final Duration MAX_RETRY_DELAY = Duration.ofSeconds(2);

    private static final Logger log = LoggerFactory.getLogger(UnlockSubscriptions.class);

    private final Supplier<StatefulRedisPubSubConnection<String, String>> connector;
    private final BooleanSupplier sharded;
    private final Function<String, @Nullable String> shardServer;
    private final ScheduledExecutorService scheduler;
    private final Duration linger;
    private final SubscribedChannels channels = new SubscribedChannels();
    /**
     * The Cluster nodes' pub/sub connections that sharded subscriptions went to, by node id, each told
     * to report its reconnects: Lettuce restores a node's subscriptions by itself, but never again
     * when that fails, and the Cluster connection reports only the reconnects of its own default one.
     */
    private final Map<String, StatefulRedisPubSubConnection<String, String>> watchedNodes = new ConcurrentHashMap<>();

    private @Nullable RedisConnectionStateListener reconnects;

    private volatile @Nullable StatefulRedisPubSubConnection<String, String> connection;
    private volatile boolean closed;
    /** Runs after an idle channel's entry was removed and before its UNSUBSCRIBE is sent; for tests. */
    volatile @Nullable Runnable beforeUnsubscribe;

    /**
     * Creates the registry over plain pub/sub; nothing connects until the first subscription.
     * @param connector opens (or returns) the pub/sub connection
     * @param scheduler runs delayed unsubscriptions and subscription retries
     * @param linger how long an unused channel stays subscribed
     */
    public UnlockSubscriptions(
            Supplier<StatefulRedisPubSubConnection<String, String>> connector,
            ScheduledExecutorService scheduler,
            Duration linger) {
        this(connector, () -> false, channel -> null, scheduler, linger);
    }

    /**
     * Creates the registry; nothing connects until the first subscription.
     * @param connector opens (or returns) the pub/sub connection
     * @param sharded whether channels are sharded (asked at each subscription; may throw while the
     *     servers cannot be asked, which counts as a failed subscription)
     * @param scheduler runs delayed unsubscriptions and subscription retries
     * @param linger how long an unused channel stays subscribed
     */
    public UnlockSubscriptions(
            Supplier<StatefulRedisPubSubConnection<String, String>> connector,
            BooleanSupplier sharded,
            ScheduledExecutorService scheduler,
            Duration linger) {
        this(connector, sharded, channel -> null, scheduler, linger);
    }

    /**
     * Creates the registry; nothing connects until the first subscription.
     * @param connector opens (or returns) the pub/sub connection
     * @param sharded whether channels are sharded (asked at each subscription; may throw while the
     *     servers cannot be asked, which counts as a failed subscription)
     * @param shardServer the node that serves a sharded channel now, or {@code null} when unknown or
     *     not sharded; see {@link #topologyChanged()}
     * @param scheduler runs delayed unsubscriptions and subscription retries
     * @param linger how long an unused channel stays subscribed
     */
    public UnlockSubscriptions(
            Supplier<StatefulRedisPubSubConnection<String, String>> connector,
            BooleanSupplier sharded,
            Function<String, @Nullable String> shardServer,
            ScheduledExecutorService scheduler,
            Duration linger) {
        this.connector = connector;
        this.sharded = sharded;
        this.shardServer = shardServer;
        this.scheduler = scheduler;
        this.linger = linger;
    }

    /**
     * Joins the waiters of a channel, subscribing if it is not subscribed yet. The caller must
     * {@link ChannelWaiters#leave() leave} exactly once.
     * @param channel channel name
     * @return the channel's waiters, whose {@code ready} future completes once subscribed
     */
    public ChannelWaiters join(String channel) {
        return join(channel, null, null, null);
    }

    /**
     * Joins the waiters of a channel that can also be woken through a second channel; see
     * {@link #join(String, String, Runnable, Runnable)}.
     * @param channel channel name (broadcast wake-ups)
     * @param alias second channel whose messages wake the same waiters, or {@code null}
     * @param onUnclaimed run when a message on {@code alias} finds no local waiter, or {@code null}
     * @return the channel's waiters
     */
    public ChannelWaiters join(String channel, @Nullable String alias, @Nullable Runnable onUnclaimed) {
        return join(channel, alias, onUnclaimed, null);
    }

    /**
     * Joins the waiters of a channel that can also be woken through a second, client-specific
     * channel (targeted wake-ups). Both are subscribed together and unsubscribed together.
     * @param channel channel name (broadcast wake-ups)
     * @param alias second channel whose messages wake the same waiters, or {@code null}
     * @param onUnclaimed run (on the pub/sub thread) when a message on {@code alias} finds no local
     *     waiter, so the wake-up can be passed on instead of lost; or {@code null}
     * @param onIdle run when the last local waiter left, while no new waiter can join (so that
     *     whatever it sends reaches Redis before anything a later waiter sends); or {@code null}
     * @return the channel's waiters, whose {@code ready} future completes once all are subscribed
     */
    public synchronized ChannelWaiters join(
            String channel, @Nullable String alias, @Nullable Runnable onUnclaimed, @Nullable Runnable onIdle) {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        connection();
        ChannelWaiters waiters = channels.get(channel);
        if (waiters == null) {
            waiters = new ChannelWaiters(channel, alias, onUnclaimed, onIdle, this);
            channels.add(waiters);
            subscribe(waiters);
        }
        waiters.joined();
        return waiters;
    }

    /**
     * Returns the local waiters of a channel, if any joined and the channel is still subscribed.
     * @param channel channel name
     * @return the waiters, or {@code null}
     */
    public @Nullable ChannelWaiters waitersOf(String channel) {
        return channels.get(channel);
    }

    /** Sends the SUBSCRIBE of an entry; called with the monitor held. */
    private void subscribe(ChannelWaiters waiters) {
        boolean retry = waiters.subscription.sending();
        CompletableFuture<Void> reply;
        try {
            StatefulRedisPubSubConnection<String, String> pubSub = connection();
            boolean shard = sharded.getAsBoolean();
            // Where the SSUBSCRIBE goes: the pub/sub connection routes it by the same partitions.
            waiters.subscription.sentTo(shard ? shardServer.apply(waiters.channel()) : null);
            reply = (shard
                            ? pubSub.async().ssubscribe(waiters.names())
                            : pubSub.async().subscribe(waiters.names()))
                    .toCompletableFuture();
        } catch (RuntimeException ex) {
            reply = CompletableFuture.failedFuture(ex);
        }
        reply.whenComplete((ok, failure) -> subscribed(waiters, retry, failure));
    }

    private synchronized void subscribed(ChannelWaiters waiters, boolean retry, @Nullable Throwable failure) {
        if (failure == null) {
            waiters.subscription.succeeded();
            watchNode(waiters.subscription.servedBy());
            if (retry) {
                // Releases published while the channel was not subscribed never reached us.
                waiters.wakeWaiting();
            }
            return;
        }
        waiters.subscription.failed(failure);
        if (closed || !channels.isCurrent(waiters)) {
            return;
        }
        Duration delay = waiters.subscription.retryDelay(RETRY_DELAY, MAX_RETRY_DELAY);
        log.debug("SUBSCRIBE {} failed; retrying in {}", waiters.channel(), delay, failure);
        retryLater(waiters, delay);
    }

    /**
     * Has the pub/sub connection to a Cluster node that a sharded subscription went to report its
     * reconnects, as the shared connection reports its own, so that a re-subscription the node
     * refused after a reconnect (a channel permission revoked meanwhile) is retried.
     */
    private void watchNode(@Nullable String nodeId) {
        StatefulRedisPubSubConnection<String, String> pubSub = connection;
        RedisConnectionStateListener listener = reconnects;
        if (nodeId == null
                || listener == null
                || !(pubSub instanceof StatefulRedisClusterPubSubConnection<String, String> cluster)) {
            return;
        }
        StatefulRedisPubSubConnection<String, String> known = watchedNodes.get(nodeId);
        if (known != null && known.isOpen()) {
            return;
        }
        RedisClusterNode server = cluster.getPartitions().getPartitionByNodeId(nodeId);
        if (server == null) {
            return;
        }
        // By address, as SSUBSCRIBE is routed: Lettuce keeps a separate connection per node id.
        RedisURI uri = server.getUri();
        cluster.getConnectionAsync(uri.getHost(), uri.getPort()).whenComplete((node, failure) -> {
            if (failure != null) {
                log.debug("Cannot watch the pub/sub connection to node {} for reconnects", nodeId, failure);
            } else if (watchedNodes.put(nodeId, node) != node) {
                node.addListener(listener);
            }
        });
    }

    private void retryLater(ChannelWaiters waiters, Duration delay) {
        waiters.subscription.retryScheduled();
        try {
            scheduler.schedule(() -> resubscribe(waiters), delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException ex) {
            waiters.subscription.retryEnded();
        }
    }

    private synchronized void resubscribe(ChannelWaiters waiters) {
        waiters.subscription.retryEnded();
        if (closed || !channels.isCurrent(waiters) || waiters.subscription.confirmed()) {
            return;
        }
        if (waiters.refs() == 0) {
            // Nobody waits: forget the channel instead of retrying; the next waiter subscribes anew.
            channels.forget(waiters);
            return;
        }
        subscribe(waiters);
    }

    /** Marks every subscription as unconfirmed and restores it, e.g. after a reconnect. */
    synchronized void resubscribeAll() {
        if (closed) {
            return;
        }
        channels.all().forEach(this::restore);
    }

    /**
     * The Cluster's topology may have changed. Lettuce announces a change before it routes by the new
     * topology, so the channels are compared with it now and once more a moment later.
     */
    public void topologyChanged() {
        later(this::followMovedShards);
        try {
            scheduler.schedule(this::followMovedShards, RETRY_DELAY.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException ex) {
            // The client is closing.
        }
    }

    /** Subscribes each sharded channel anew whose slot another node serves now than when it was subscribed. */
    private synchronized void followMovedShards() {
        if (closed) {
            return;
        }
        for (ChannelWaiters waiters : channels.all()) {
            String before = waiters.subscription.servedBy();
            if (before == null) {
                continue;
            }
            String now = shardServer.apply(waiters.channel());
            if (now != null && !now.equals(before)) {
                log.debug("Slot of {} moved from node {} to {}; subscribing there", waiters.channel(), before, now);
                restore(waiters);
            }
        }
    }

    /** The server dropped a subscription we still hold (e.g. its Cluster slot moved): restore it. */
    synchronized void lost(String channel) {
        ChannelWaiters waiters = channels.get(channel);
        if (waiters == null || closed) {
            return;
        }
        restore(waiters);
    }

    /** Sends the SUBSCRIBE of an entry that may have lost its subscription, unless one is on its way; called with the monitor held. */
    private void restore(ChannelWaiters waiters) {
        if (waiters.subscription.lost()) {
            subscribe(waiters);
        }
    }

    void confirmed(String channel, boolean sharded) {
        ChannelWaiters waiters = channels.get(channel);
        if (waiters == null && !channels.isAlias(channel)) {
            later(() -> dropUnwanted(channel, sharded));
            return;
        }
        if (waiters != null && waiters.subscription.confirmedAgain()) {
            // Lettuce restored the subscription after a reconnect: messages in between were lost.
            waiters.wakeWaiting();
        }
    }

    /**
     * A subscription was confirmed that no entry holds: Lettuce restored it on reconnect after our
     * UNSUBSCRIBE was refused while disconnected. Nobody waits on it, so end it.
     */
    private synchronized void dropUnwanted(String channel, boolean sharded) {
        StatefulRedisPubSubConnection<String, String> pubSub = connection;
        if (closed || pubSub == null || channels.isWanted(channel)) {
            return;
        }
        try {
            (sharded ? pubSub.async().sunsubscribe(channel) : pubSub.async().unsubscribe(channel))
                    .exceptionally(failure -> {
                        log.debug("UNSUBSCRIBE {} of a restored subscription failed", channel, failure);
                        return null;
                    });
        } catch (RuntimeException ex) {
            log.debug("UNSUBSCRIBE {} of a restored subscription failed", channel, ex);
        }
    }

    synchronized void left(ChannelWaiters waiters) {
        if (waiters.refs() == 0 && !closed) {
            // Under the monitor: a new waiter cannot join (and send anything) before this runs.
            waiters.idle();
            waiters.subscription.unsubscribeLater(
                    scheduler.schedule(() -> unsubscribeIfIdle(waiters), linger.toMillis(), TimeUnit.MILLISECONDS));
        }
    }

    synchronized void cancelUnsubscribe(ChannelWaiters waiters) {
        waiters.subscription.keep();
    }

    private synchronized void unsubscribeIfIdle(ChannelWaiters waiters) {
        if (waiters.refs() > 0 || closed || !channels.isCurrent(waiters)) {
            return;
        }
        channels.unlist(waiters);
        Runnable hook = beforeUnsubscribe;
        if (hook != null) {
            hook.run();
        }
        StatefulRedisPubSubConnection<String, String> pubSub = connection;
        if (pubSub == null) {
            channels.forget(waiters);
            return;
        }
        CompletableFuture<Void> reply;
        try {
            reply = (sharded.getAsBoolean()
                            ? pubSub.async().sunsubscribe(waiters.names())
                            : pubSub.async().unsubscribe(waiters.names()))
                    .toCompletableFuture();
        } catch (RuntimeException ex) {
            reply = CompletableFuture.failedFuture(ex);
        }
        // Until the server confirms, it may still deliver a targeted wake-up on the alias: keep the
        // alias entry so that onMessage passes such a wake-up on.
        reply.whenComplete((ok, failure) -> {
            if (failure != null) {
                log.debug("UNSUBSCRIBE {} failed", waiters.channel(), failure);
            }
            channels.forget(waiters);
        });
    }

    private synchronized StatefulRedisPubSubConnection<String, String> connection() {
        if (connection == null) {
            StatefulRedisPubSubConnection<String, String> pubSub = connector.get();
            SubscriptionEvents events = new SubscriptionEvents(this);
            pubSub.addListener(events);
            reconnects = events.connectionListener();
            pubSub.addListener(reconnects);
            connection = pubSub;
        }
        return connection;
    }

    /** Runs off Lettuce's event loop, which must never block on a Redis reply. */
    void later(Runnable task) {
        if (closed) {
            return;
        }
        try {
            scheduler.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException ex) {
            // The client is closing.
        }
    }

    void onMessage(String channel, String message) {
        channels.deliver(channel, message);
    }

    /**
     * Sends {@code PING} on the pub/sub connection, opening it if needed: waiters are woken through
     * it, so a health check should know whether it answers.
     * @return the pending reply
     */
    public CompletableFuture<String> ping() {
        return connection().async().ping().toCompletableFuture();
    }

    /**
     * Returns whether the pub/sub connection is open, so that {@link #join} does not block to open it.
     * @return whether connected
     */
    public boolean connected() {
        return connection != null;
    }

    /** @return how many waiters are parked on a wake-up now, for tests and diagnostics */
    public int parkedWaiters() {
        return channels.parkedWaiters();
    }

    /** Returns how many channels are subscribed now, for tests and diagnostics. @return count */
    public int subscribedChannels() {
        return channels.size();
    }

    /** Wakes every waiter and refuses new ones; called when the client closes. */
    public synchronized void close() {
        closed = true;
        channels.closeAll();
    }

    /**
     * Returns whether the registry was closed.
     * @return whether closed
     */
    public boolean isClosed() {
        return closed;
    }
}
