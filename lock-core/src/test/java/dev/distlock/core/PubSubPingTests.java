package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The wake-up (pub/sub) connection is checked on its own: commands can work while it cannot connect. */
@Tag("fault")
class PubSubPingTests {

    private RedisServer redis;
    private RedisClient adminClient;
    private StatefulRedisConnection<String, String> admin;
    private LockClient client;

    @BeforeEach
    void setUp() {
        redis = RedisServers.start();
        adminClient = RedisClient.create(redis.uri());
        admin = adminClient.connect();
        client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .commandTimeout(Duration.ofSeconds(1))
                .build());
    }

    @AfterEach
    void tearDown() {
        admin.sync().configSet("maxclients", "10000");
        client.close();
        admin.close();
        adminClient.shutdown();
        redis.stop();
    }

    @Test
    void whenThePubSubConnectionCannotOpenThenItsPingFailsWhileCommandsStillWork() {
        assertThat(client.ping()).isPositive();
        // Every connection now open (ours and the lock client's command connection) stays; new ones are refused.
        admin.sync().configSet("maxclients", connectedClients());

        assertThat(client.ping()).as("command connection").isPositive();
        assertThatThrownBy(client::pingSubscriptions).as("pub/sub connection").isInstanceOf(LockException.class);

        admin.sync().configSet("maxclients", "10000");
        assertThat(client.pingSubscriptions())
                .as("pub/sub connection once it can open")
                .isPositive();
    }

    private String connectedClients() {
        return admin.sync()
                .info("clients")
                .lines()
                .filter(line -> line.startsWith("connected_clients:"))
                .map(line -> line.substring("connected_clients:".length()).trim())
                .findFirst()
                .orElseThrow();
    }
}
