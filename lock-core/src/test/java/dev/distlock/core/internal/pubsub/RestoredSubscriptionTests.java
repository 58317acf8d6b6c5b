package dev.distlock.core.internal.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An UNSUBSCRIBE refused while the pub/sub connection is down (the client rejects commands while
 * disconnected) leaves the channel in Lettuce's own list, which it re-subscribes on reconnect. Such a
 * subscription nobody waits on must be dropped, not kept for the life of the client.
 */
@Tag("fault")
class RestoredSubscriptionTests {

    private RedisServer redis;
    private RedisClient client;
    private ScheduledExecutorService scheduler;
    private UnlockSubscriptions subscriptions;

    @BeforeEach
    void setUp() {
        redis = RedisServers.start();
        client = RedisClient.create(redis.uri());
        // As the lock client's own connections do: nothing is queued while disconnected.
        client.setOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        scheduler = Executors.newSingleThreadScheduledExecutor();
        subscriptions = new UnlockSubscriptions(
                () -> client.connectPubSub(StringCodec.UTF8), scheduler, Duration.ofMillis(100));
    }

    @AfterEach
    void tearDown() {
        subscriptions.close();
        scheduler.shutdownNow();
        client.shutdown();
        redis.stop();
    }

    @Test
    void whenAnUnsubscribeIsRefusedWhileDisconnectedThenTheRestoredSubscriptionIsDropped() throws Exception {
        String channel = "redisson_lock__channel:{restored-" + UUID.randomUUID() + "}";
        ChannelWaiters waiters = subscriptions.join(channel);
        waiters.ready().get(5, TimeUnit.SECONDS);

        redis.stop();
        waiters.leave();
        // The lingering channel's UNSUBSCRIBE is refused while disconnected and the entry forgotten.
        await().atMost(Duration.ofSeconds(5)).until(() -> subscriptions.subscribedChannels() == 0);

        redis.start();
        // A fresh server counts the SUBSCRIBE that Lettuce sends when it reconnects.
        await().atMost(Duration.ofSeconds(30))
                .until(() -> redis.command("INFO", "commandstats").contains("cmdstat_subscribe:calls="));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(redis.command("PUBSUB", "NUMSUB", channel))
                .as("subscribers of the abandoned channel")
                .endsWith("\n0"));
    }
}
