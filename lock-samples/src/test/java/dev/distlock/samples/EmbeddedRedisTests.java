package dev.distlock.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.samples.redis.EmbeddedRedis;
import dev.distlock.samples.redis.EmbeddedRedisInitializer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts the sample with no Redis configured: it must start its own and stop it on shutdown.
 */
class EmbeddedRedisTests {

    @Test
    void whenNoRedisIsConfiguredThenTheAppStartsAndStopsAnEmbeddedOne() {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(SamplesApplication.class)
                // The main class names the generated initializer in AOT mode (-Paot).
                .main(SamplesApplication.class)
                .properties("server.port=0", "samples.report-interval=1h")
                .run();
        EmbeddedRedis redis;
        try {
            redis = context.getBean(EmbeddedRedisInitializer.BEAN_NAME, EmbeddedRedis.class);
            assertThat(redis.isRunning()).isTrue();
            assertThat(context.getEnvironment().getProperty("distlock.redis.url"))
                    .isEqualTo(redis.url());
            assertThat(listening(redis.port())).isTrue();

            LockClient client = context.getBean(LockClient.class);
            assertThat(client.getOptions().uri()).contains(":" + redis.port());
            RedisLock lock = client.getLock("embedded-check");
            assertThat(lock.tryLock()).isTrue();
            assertThat(lock.isLocked()).isTrue();
            lock.unlock();
        } finally {
            context.close();
        }
        assertThat(redis.isRunning()).isFalse();
        await().atMost(Duration.ofSeconds(10)).until(() -> !listening(redis.port()));
    }

    @Test
    @DisabledIfSystemProperty(
            named = "spring.aot.enabled",
            matches = "true",
            disabledReason = "AOT evaluates the"
                    + " connection-details conditions at build time, when no distlock.redis.url is set")
    void whenDistlockRedisIsConfiguredThenNoEmbeddedRedisStarts() {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(SamplesApplication.class)
                // The main class names the generated initializer in AOT mode (-Paot).
                .main(SamplesApplication.class)
                // A web server on a free port rather than no web application: AOT fixes the application type at build
                // time.
                .properties(
                        "server.port=0",
                        "spring.main.lazy-initialization=true",
                        "samples.report-interval=1h",
                        "distlock.redis.url="
                                + dev.distlock.core.test.RedisServers.shared().uri())
                .run();
        try {
            assertThat(context.containsBean(EmbeddedRedisInitializer.BEAN_NAME)).isFalse();
            assertThat(context.getBean(LockClient.class).ping()).isPositive();
        } finally {
            context.close();
        }
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException ex) {
            return false;
        }
    }
}
