package dev.distlock.core.internal.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Subscriptions on a real server: what happens around an unsubscription. */
class UnlockSubscriptionsTests {

    private RedisServer redis;
    private RedisClient client;
    private ScheduledExecutorService scheduler;
    private UnlockSubscriptions subscriptions;

    @BeforeEach
    void setUp() {
        redis = RedisServers.shared();
        client = RedisClient.create(redis.uri());
        scheduler = Executors.newSingleThreadScheduledExecutor();
        subscriptions = new UnlockSubscriptions(
                () -> client.connectPubSub(StringCodec.UTF8), scheduler, Duration.ofMillis(100));
    }

    @AfterEach
    void tearDown() {
        subscriptions.close();
        scheduler.shutdownNow();
        client.shutdown();
    }

    @Test
    void whenATargetedWakeupArrivesWhileUnsubscribingThenItIsPassedOn() throws Exception {
        String channel = "redisson_lock__channel:{unsub-" + UUID.randomUUID() + "}";
        String alias = channel + ":wake";
        CountDownLatch passedOn = new CountDownLatch(1);
        CountDownLatch published = new CountDownLatch(1);
        ChannelWaiters waiters = subscriptions.join(channel, alias, passedOn::countDown);
        waiters.ready().get(5, TimeUnit.SECONDS);
        // The release runs after the idle channel's entry is gone but before its UNSUBSCRIBE is sent:
        // the server still counts us as listening, so the release wakes nobody else.
        subscriptions.beforeUnsubscribe = () -> {
            assertThat(redis.command("PUBLISH", alias, UnlockSubscriptions.WAKE_ONE))
                    .isEqualTo("1");
            published.countDown();
        };

        waiters.leave();

        assertThat(published.await(10, TimeUnit.SECONDS))
                .as("release published in the window")
                .isTrue();
        assertThat(passedOn.await(5, TimeUnit.SECONDS))
                .as("the wake-up was passed on")
                .isTrue();
    }
}
