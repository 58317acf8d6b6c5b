package dev.distlock.core.internal.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The delay before a failed subscription is tried again grows with the failures, up to a bound. */
class ChannelSubscriptionTests {

    private static final Duration FIRST = Duration.ofMillis(500);
    private static final Duration LONGEST = Duration.ofSeconds(2);

    @Test
    void retryDelayDoublesWithEachFailureUpToTheLongest() {
        ChannelSubscription subscription = new ChannelSubscription();
        Duration[] expected = {
            Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(2)
        };
        for (Duration delay : expected) {
            subscription.sending();
            subscription.failed(new IllegalStateException("NOPERM"));
            assertThat(subscription.retryDelay(FIRST, LONGEST)).isEqualTo(delay);
        }
        for (int i = 0; i < 100; i++) {
            subscription.failed(new IllegalStateException("NOPERM"));
        }
        assertThat(subscription.retryDelay(FIRST, LONGEST)).isEqualTo(LONGEST);
    }

    @Test
    void retryDelayStartsOverOnceSubscribed() {
        ChannelSubscription subscription = new ChannelSubscription();
        for (int i = 0; i < 5; i++) {
            subscription.failed(new IllegalStateException("NOPERM"));
        }
        subscription.succeeded();
        subscription.failed(new IllegalStateException("NOPERM"));

        assertThat(subscription.retryDelay(FIRST, LONGEST)).isEqualTo(FIRST);
    }
}
