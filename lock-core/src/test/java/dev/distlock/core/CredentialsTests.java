package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.distlock.core.test.RedisSentinelGroup;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link LockClientOptions.Builder#credentials} and {@link LockClientOptions.Builder#database} on every topology. */
class CredentialsTests {

    private static final String PASSWORD = "s3cret";

    private static RedisServer server;

    @BeforeAll
    static void startProtectedServer() {
        // Protected after start: the fixture's readiness PING does not authenticate.
        server = RedisServers.start();
        server.command("CONFIG", "SET", "requirepass", PASSWORD);
    }

    @AfterAll
    static void stopServer() {
        server.stop();
    }

    private static String plainUri(RedisServer redis) {
        return "redis://" + redis.host() + ":" + redis.port();
    }

    private static String authUri(RedisServer redis, int database) {
        return "redis://:" + PASSWORD + "@" + redis.host() + ":" + redis.port() + "/" + database;
    }

    private static LockClient client(LockClientOptions.Builder builder) {
        return LockClient.create(builder.commandTimeout(Duration.ofSeconds(2)).build());
    }

    @Test
    void whenCredentialsAndDatabaseGivenThenSingleServerUsesThem() throws Exception {
        try (LockClient client = client(LockClientOptions.builder()
                        .uri(plainUri(server))
                        .credentials(null, PASSWORD)
                        .database(2));
                LockClient db2 = LockClient.create(authUri(server, 2));
                LockClient db0 = LockClient.create(authUri(server, 0))) {
            RedisLock lock = client.getLock("creds");
            assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
            assertThat(db2.getLock("creds").isLocked()).isTrue();
            assertThat(db0.getLock("creds").isLocked()).isFalse();
            lock.unlock();
        }
    }

    @Test
    void whenNoCredentialsThenProtectedServerRefuses() {
        try (LockClient client = client(LockClientOptions.builder().uri(plainUri(server)))) {
            assertThatExceptionOfType(LockException.class)
                    .isThrownBy(() -> client.getLock("refused").tryLock(0, 10, TimeUnit.SECONDS));
        }
    }

    @Test
    void whenUriCarriesCredentialsAndDatabaseThenTheyWin() throws Exception {
        try (LockClient client = client(LockClientOptions.builder()
                        .uri(authUri(server, 4))
                        .credentials(null, "wrong")
                        .database(5));
                LockClient db4 = LockClient.create(authUri(server, 4))) {
            RedisLock lock = client.getLock("uri-wins");
            assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
            assertThat(db4.getLock("uri-wins").isLocked()).isTrue();
            lock.unlock();
        }
    }

    @Test
    void whenArgumentsAreInvalidThenBuilderNamesThem() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockClientOptions.builder().credentials("user", null))
                .withMessageContaining("'password'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockClientOptions.builder().database(-1))
                .withMessageContaining("'database'");
        assertThatIllegalStateException()
                .isThrownBy(() -> LockClientOptions.builder()
                        .cluster("redis://h:7000")
                        .database(1)
                        .build())
                .withMessageContaining("database(1)");
    }

    @Test
    void whenSentinelMasterIsProtectedThenCredentialsAndDatabaseReachIt() throws Exception {
        try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
            group.replica().command("CONFIG", "SET", "masterauth", PASSWORD);
            group.master().command("CONFIG", "SET", "masterauth", PASSWORD);
            for (String sentinel : group.sentinelUris()) {
                setSentinelAuthPass(sentinel);
            }
            group.master().command("CONFIG", "SET", "requirepass", PASSWORD);
            group.replica().command("CONFIG", "SET", "requirepass", PASSWORD);
            try (LockClient client = client(LockClientOptions.builder()
                            .sentinel(RedisSentinelGroup.MASTER_ID, group.sentinelUris())
                            .credentials(null, PASSWORD)
                            .database(3));
                    LockClient unauthenticated = client(
                            LockClientOptions.builder().sentinel(RedisSentinelGroup.MASTER_ID, group.sentinelUris()));
                    LockClient master = LockClient.create(authUri(group.master(), 3))) {
                RedisLock lock = client.getLock("sentinel-creds");
                assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
                assertThat(master.getLock("sentinel-creds").isLocked()).isTrue();
                lock.unlock();
                assertThatExceptionOfType(LockException.class)
                        .isThrownBy(() -> unauthenticated.getLock("refused").tryLock(0, 10, TimeUnit.SECONDS));
            }
        }
    }

    /** Lets a sentinel authenticate to the master it monitors, before the master requires it. */
    private static void setSentinelAuthPass(String sentinelUri) {
        RedisClient lettuce = RedisClient.create();
        try (StatefulRedisSentinelConnection<String, String> connection =
                lettuce.connectSentinel(RedisURI.create(sentinelUri))) {
            connection.sync().set(RedisSentinelGroup.MASTER_ID, "auth-pass", PASSWORD);
        } finally {
            lettuce.shutdown();
        }
    }
}
