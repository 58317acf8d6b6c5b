package dev.distlock.core.internal.pubsub;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * Subscriptions to unlock channels over one shared pub/sub connection, reference-counted per
 * channel. A channel stays subscribed for a while after its last waiter leaves, so a lock that is
 * contended again soon does not pay a SUBSCRIBE/UNSUBSCRIBE pair per wait.
 */
public final class UnlockSubscriptions {

    /** Message that wakes one waiter. */
    public static final String WAKE_ONE = "0";

    /** Message that wakes every waiter (read-write lock). */
    public static final String WAKE_ALL = "1";

    private static final Logger log = LoggerFactory.getLogger(UnlockSubscriptions.class);

    private final Supplier<StatefulRedisPubSubConnection<String, String>> connector;
    private final ScheduledExecutorService scheduler;
    private final Duration linger;
    private final Map<String, ChannelWaiters> channels = new ConcurrentHashMap<>();
    private final Map<String, ChannelWaiters> aliases = new ConcurrentHashMap<>();
    private @Nullable StatefulRedisPubSubConnection<String, String> connection;
    private volatile boolean closed;

    /**
     * Creates the registry; nothing connects until the first subscription.
     * @param connector opens (or returns) the pub/sub connection
     * @param scheduler runs delayed unsubscriptions
     * @param linger how long an unused channel stays subscribed
     */
    public UnlockSubscriptions(Supplier<StatefulRedisPubSubConnection<String, String>> connector,
            ScheduledExecutorService scheduler, Duration linger) {
        this.connector = connector;
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
        return join(channel, null, null);
    }

    /**
     * Joins the waiters of a channel that can also be woken through a second, client-specific
     * channel (targeted wake-ups). Both are subscribed together and unsubscribed together.
     * @param channel channel name (broadcast wake-ups)
     * @param alias second channel whose messages wake the same waiters, or {@code null}
     * @param onUnclaimed run (on the pub/sub thread) when a message on {@code alias} finds no local
     *     waiter, so the wake-up can be passed on instead of lost; or {@code null}
     * @return the channel's waiters, whose {@code ready} future completes once all are subscribed
     */
    public synchronized ChannelWaiters join(String channel, @Nullable String alias, @Nullable Runnable onUnclaimed) {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        StatefulRedisPubSubConnection<String, String> pubSub = connection();
        ChannelWaiters waiters = channels.get(channel);
        if (waiters == null) {
            waiters = new ChannelWaiters(channel, alias, onUnclaimed, this);
            channels.put(channel, waiters);
            String[] names = alias == null ? new String[] {channel} : new String[] {channel, alias};
            if (alias != null) {
                aliases.put(alias, waiters);
            }
            CompletableFuture<Void> ready = waiters.ready;
            pubSub.async().subscribe(names).whenComplete((ok, failure) -> {
                if (failure != null) {
                    ready.completeExceptionally(failure);
                }
                else {
                    ready.complete(null);
                }
            });
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

    synchronized void left(ChannelWaiters waiters) {
        if (waiters.refs() == 0 && !closed) {
            waiters.unsubscribeTask = scheduler.schedule(() -> unsubscribeIfIdle(waiters), linger.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    synchronized void cancelUnsubscribe(ChannelWaiters waiters) {
        ScheduledFuture<?> task = waiters.unsubscribeTask;
        if (task != null) {
            task.cancel(false);
            waiters.unsubscribeTask = null;
        }
    }

    private synchronized void unsubscribeIfIdle(ChannelWaiters waiters) {
        if (waiters.refs() > 0 || closed || channels.get(waiters.channel()) != waiters) {
            return;
        }
        channels.remove(waiters.channel());
        String alias = waiters.alias();
        if (alias != null) {
            aliases.remove(alias, waiters);
        }
        StatefulRedisPubSubConnection<String, String> pubSub = connection;
        if (pubSub != null) {
            String[] names = alias == null ? new String[] {waiters.channel()} : new String[] {waiters.channel(), alias};
            pubSub.async().unsubscribe(names).exceptionally(failure -> {
                log.debug("UNSUBSCRIBE {} failed", waiters.channel(), failure);
                return null;
            });
        }
    }

    private StatefulRedisPubSubConnection<String, String> connection() {
        if (connection == null) {
            StatefulRedisPubSubConnection<String, String> pubSub = connector.get();
            pubSub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    onMessage(channel, message);
                }
            });
            connection = pubSub;
        }
        return connection;
    }

    private void onMessage(String channel, String message) {
        ChannelWaiters waiters = channels.get(channel);
        if (waiters == null) {
            waiters = aliases.get(channel);
            if (waiters != null && waiters.refs() == 0) {
                waiters.unclaimed();
                return;
            }
        }
        if (waiters == null) {
            return;
        }
        if (WAKE_ALL.equals(message)) {
            waiters.wakeAll();
        }
        else {
            waiters.wakeOne();
        }
    }

    /** Returns how many channels are subscribed now, for tests and diagnostics. @return count */
    public int subscribedChannels() {
        return channels.size();
    }

    /** Wakes every waiter and refuses new ones; called when the client closes. */
    public synchronized void close() {
        closed = true;
        channels.values().forEach(waiters -> {
            // A waiter still waiting for its SUBSCRIBE must not sit out the command timeout.
            waiters.ready.completeExceptionally(new IllegalStateException("lock client closed"));
            waiters.wakeAll();
        });
        channels.clear();
        aliases.clear();
    }

    /**
     * Returns whether the registry was closed.
     * @return whether closed
     */
    public boolean isClosed() {
        return closed;
    }
}
