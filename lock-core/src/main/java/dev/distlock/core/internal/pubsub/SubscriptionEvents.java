package dev.distlock.core.internal.pubsub;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import java.net.SocketAddress;

/**
 * What the pub/sub connection reports, turned into calls on the {@link UnlockSubscriptions} that
 * own it: messages wake waiters, (un)subscribe confirmations settle or restore subscriptions, and
 * a reconnect restores them all. Runs on Lettuce's event loop, so anything that sends a command
 * is handed to the subscriptions' scheduler.
 */
final class SubscriptionEvents extends RedisPubSubAdapter<String, String> {

    private final UnlockSubscriptions subscriptions;

    SubscriptionEvents(UnlockSubscriptions subscriptions) {
        this.subscriptions = subscriptions;
    }

    @Override
    public void message(String channel, String message) {
        subscriptions.onMessage(channel, message);
    }

    @Override
    public void smessage(String channel, String message) {
        subscriptions.onMessage(channel, message);
    }

    @Override
    public void subscribed(String channel, long count) {
        subscriptions.confirmed(channel, false);
    }

    @Override
    public void ssubscribed(String channel, long count) {
        subscriptions.confirmed(channel, true);
    }

    @Override
    public void unsubscribed(String channel, long count) {
        subscriptions.later(() -> subscriptions.lost(channel));
    }

    @Override
    public void sunsubscribed(String channel, long count) {
        subscriptions.later(() -> subscriptions.lost(channel));
    }

    /** @return the listener that restores every subscription when the connection comes back */
    RedisConnectionStateListener connectionListener() {
        return new RedisConnectionStateListener() {
            @Override
            public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
                // Lettuce re-subscribes by itself, but a re-subscription that fails (e.g. the
                // channel permission was revoked meanwhile) would never be retried: do it here.
                subscriptions.later(subscriptions::resubscribeAll);
            }
        };
    }
}
