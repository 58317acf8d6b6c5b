package dev.distlock.core.internal.pubsub;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The channels {@link UnlockSubscriptions} keeps subscribed, each with its local waiters, found by
 * its name or by its alias (the client-specific channel of targeted wake-ups), and the hand-off of a
 * message to the waiters it is for. Changed only under the subscriptions' monitor; read from any
 * thread, as messages arrive on Lettuce's event loop.
 */
final class SubscribedChannels {

    private final Map<String, ChannelWaiters> channels = new ConcurrentHashMap<>();
    /**
     * Alias channels, including those of entries whose UNSUBSCRIBE is still in flight: a targeted
     * wake-up that reaches the client in that window must be passed on, not dropped.
     */
    private final Map<String, ChannelWaiters> aliases = new ConcurrentHashMap<>();

    /**
     * @param channel channel name
     * @return the entry of the channel, or {@code null}
     */
    @Nullable
    ChannelWaiters get(String channel) {
        return channels.get(channel);
    }

    /** @param waiters a new entry, listed under its channel and its alias */
    void add(ChannelWaiters waiters) {
        channels.put(waiters.channel(), waiters);
        String alias = waiters.alias();
        if (alias != null) {
            aliases.put(alias, waiters);
        }
    }

    /**
     * @param waiters an entry
     * @return whether it is still the entry of its channel (not forgotten, not replaced)
     */
    boolean isCurrent(ChannelWaiters waiters) {
        return channels.get(waiters.channel()) == waiters;
    }

    /**
     * Takes an entry off its channel while its UNSUBSCRIBE is in flight; its alias stays listed until
     * {@link #forget forgotten}.
     * @param waiters the entry
     */
    void unlist(ChannelWaiters waiters) {
        channels.remove(waiters.channel());
    }

    /** @param waiters an entry to drop under both its names, unless another took its place */
    void forget(ChannelWaiters waiters) {
        channels.remove(waiters.channel(), waiters);
        String alias = waiters.alias();
        if (alias != null) {
            aliases.remove(alias, waiters);
        }
    }

    /**
     * @param channel channel name
     * @return whether it is the alias of an entry
     */
    boolean isAlias(String channel) {
        return aliases.containsKey(channel);
    }

    /**
     * @param channel channel name
     * @return whether an entry listens on it, as its channel or its alias
     */
    boolean isWanted(String channel) {
        return channels.containsKey(channel) || aliases.containsKey(channel);
    }

    /** @return the entries listed under their channel */
    Collection<ChannelWaiters> all() {
        return channels.values();
    }

    /**
     * Hands a message to the waiters it is for. A targeted wake-up on the alias of a channel nobody
     * waits on any more is passed on, not lost.
     * @param channel the channel it came on
     * @param message {@link UnlockSubscriptions#WAKE_ALL} or a message that wakes one waiter
     */
    void deliver(String channel, String message) {
        ChannelWaiters waiters = channels.get(channel);
        boolean targeted = false;
        if (waiters == null) {
            waiters = aliases.get(channel);
            targeted = true;
            if (waiters != null && waiters.refs() == 0) {
                waiters.unclaimed();
                return;
            }
        }
        if (waiters == null) {
            return;
        }
        if (UnlockSubscriptions.WAKE_ALL.equals(message)) {
            waiters.wakeAll();
        } else if (targeted) {
            // The last waiter may leave as the wake-up reaches it: then it is passed on too.
            waiters.wakeOneTargeted();
        } else {
            waiters.wakeOne();
        }
    }

    /** @return how many waiters are parked on a wake-up now */
    int parkedWaiters() {
        return channels.values().stream().mapToInt(ChannelWaiters::parked).sum();
    }

    /** @return how many channels are listed */
    int size() {
        return channels.size();
    }

    /** The client closed: every entry's waiters are woken, to find that out, and every entry is dropped. */
    void closeAll() {
        channels.values().forEach(waiters -> {
            waiters.subscription.closed();
            waiters.wakeAll();
        });
        channels.clear();
        aliases.clear();
    }
}
