package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.internal.actuator.DistlockEndpoint;
import dev.distlock.spring.internal.actuator.DistlockHealthIndicator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.json.JsonMapper;

/** Credentials and database reach every topology, and are never shown. */
class RedisCredentialsTests {

    private static final String PASSWORD = "s3cret";

    private static RedisServer protectedServer;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistlockAutoConfiguration.class,
                    DistlockHealthAutoConfiguration.class,
                    DistlockEndpointAutoConfiguration.class))
            .withPropertyValues("management.endpoints.web.exposure.include=distlock", "distlock.redis.timeout=1s");

    @BeforeAll
    static void startProtectedServer() {
        // Protected after start: the fixture's readiness PING does not authenticate.
        protectedServer = RedisServers.start();
        protectedServer.command("CONFIG", "SET", "requirepass", PASSWORD);
    }

    @AfterAll
    static void stopServer() {
        protectedServer.stop();
    }

    @Test
    void whenSentinelSetThenPasswordUsernameAndDatabaseReachTheMasterOptions() {
        runner.withPropertyValues(
                        "distlock.redis.sentinel.master=mymaster",
                        "distlock.redis.sentinel.nodes=s1:26379",
                        "distlock.redis.sentinel.password=sentinel-pw",
                        "distlock.redis.username=app",
                        "distlock.redis.password=" + PASSWORD,
                        "distlock.redis.database=4")
                .run(context -> {
                    LockClientOptions options =
                            context.getBean(LockClient.class).getOptions();
                    assertThat(options.username()).isEqualTo("app");
                    assertThat(options.password()).isEqualTo(PASSWORD);
                    assertThat(options.database()).isEqualTo(4);
                    assertThat(options.sentinelNodes()).containsExactly("redis://:sentinel-pw@s1:26379");
                });
    }

    @Test
    void whenSpringDataRedisSentinelSetThenPasswordAndDatabaseReachTheMasterOptions() {
        runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.sentinel.master=mymaster",
                        "spring.data.redis.sentinel.nodes=s1:26379",
                        "spring.data.redis.password=" + PASSWORD,
                        "spring.data.redis.database=2")
                .run(context -> {
                    LockClientOptions options =
                            context.getBean(LockClient.class).getOptions();
                    assertThat(options.password()).isEqualTo(PASSWORD);
                    assertThat(options.database()).isEqualTo(2);
                    assertThat(options.sentinelNodes()).containsExactly("redis://s1:26379");
                });
    }

    @Test
    void whenDataRedisConnectionDetailsNameASentinelThenItsCredentialsAreUsed() {
        runner.withBean(DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {
                    @Override
                    public String getPassword() {
                        return PASSWORD;
                    }

                    @Override
                    public Sentinel getSentinel() {
                        return new Sentinel() {
                            @Override
                            public int getDatabase() {
                                return 3;
                            }

                            @Override
                            public String getMaster() {
                                return "mymaster";
                            }

                            @Override
                            public List<Node> getNodes() {
                                return List.of(new Node("s1", 26379));
                            }

                            @Override
                            public String getUsername() {
                                return null;
                            }

                            @Override
                            public String getPassword() {
                                return null;
                            }
                        };
                    }
                })
                .run(context -> {
                    LockClientOptions options =
                            context.getBean(LockClient.class).getOptions();
                    assertThat(options.password()).isEqualTo(PASSWORD);
                    assertThat(options.database()).isEqualTo(3);
                });
    }

    @Test
    void whenPasswordPropertySetThenProtectedServerIsUsedAndNeverShown() {
        runner.withPropertyValues(
                        "distlock.redis.url=redis://" + protectedServer.host() + ":" + protectedServer.port(),
                        "distlock.redis.password=" + PASSWORD,
                        "distlock.redis.database=6")
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    RedisLock lock = client.getLock("protected");
                    assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
                    try (LockClient db6 = LockClient.create("redis://:" + PASSWORD + "@" + protectedServer.host() + ":"
                            + protectedServer.port() + "/6")) {
                        assertThat(db6.getLock("protected").isLocked()).isTrue();
                    }
                    var health = ((DistlockHealthIndicator) context.getBean("distlockHealthContributor")).health(true);
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    DistlockEndpoint endpoint = context.getBean(DistlockEndpoint.class);
                    JsonMapper json = JsonMapper.builder().build();
                    assertThat(json.writeValueAsString(health)).doesNotContain(PASSWORD);
                    assertThat(json.writeValueAsString(endpoint.locks()))
                            .contains("protected")
                            .doesNotContain(PASSWORD);
                    assertThat(json.writeValueAsString(endpoint.lock("protected")))
                            .doesNotContain(PASSWORD);
                    lock.unlock();
                });
    }

    @Test
    void whenPasswordIsWrongThenHealthIsDownWithoutShowingIt() {
        runner.withPropertyValues(
                        "distlock.redis.url=redis://" + protectedServer.host() + ":" + protectedServer.port(),
                        "distlock.redis.password=not-" + PASSWORD)
                .run(context -> {
                    var health = ((DistlockHealthIndicator) context.getBean("distlockHealthContributor")).health(true);
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(String.valueOf(health.getDetails())).doesNotContain(PASSWORD);
                });
    }
}
