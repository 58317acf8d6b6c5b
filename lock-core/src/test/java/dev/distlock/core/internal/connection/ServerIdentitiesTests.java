package dev.distlock.core.internal.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The INFO line at connect names the server's product and version: Valkey's own, not the Redis one it emulates. */
class ServerIdentitiesTests {

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(ServerIdentities.class);

    @BeforeEach
    void capture() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void release() {
        logger.detachAppender(log);
    }

    @Test
    void whenTheServerIsValkeyThenItsOwnVersionIsNamed() {
        String info = "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.1.1\r\n";
        assertThat(ServerIdentities.identity(info)).isEqualTo("Valkey 8.1.1");
    }

    @Test
    void whenTheServerIsRedisThenItsVersionIsNamed() {
        assertThat(ServerIdentities.identity("# Server\r\nredis_version:8.0.2\r\nredis_mode:standalone\r\n"))
                .isEqualTo("Redis 8.0.2");
        assertThat(ServerIdentities.identity("# Memory\r\nmaxmemory_policy:noeviction\r\n"))
                .isNull();
    }

    @Test
    void whenAClientConnectsThenOneInfoLineNamesTheServerAndAReconnectAddsNone() {
        RedisServer redis = RedisServers.start();
        try (LockClient client = LockClient.create(redis.uri())) {
            client.ping();
            String expected = redis.command("INFO", "server").contains("valkey_version") ? "Valkey " : "Redis ";
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(log.list)
                    .singleElement()
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .asString()
                    .startsWith("Distlock writes to " + expected)
                    .endsWith(" at 127.0.0.1:" + redis.port()));
            redis.command("CLIENT", "KILL", "TYPE", "normal");
            // A ping written before the client has seen the kill fails as in flight: try again.
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
                client.ping();
                return true;
            });
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> log.list.size() == 1);
        } finally {
            redis.stop();
        }
    }
}
