package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockListener;
import dev.distlock.spring.internal.config.RedLockClients;
import dev.distlock.spring.internal.hold.HoldIndex;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Where the client connects: one condition per test. */
class DistlockConnectionDetailsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataRedisAutoConfiguration.class, SslAutoConfiguration.class, DistlockAutoConfiguration.class));

    private static LockClientOptions options(org.springframework.context.ApplicationContext context) {
        return context.getBean(LockClient.class).getOptions();
    }

    @Test
    void whenNothingIsSetThenBootsDefaultsAreAdaptedToLocalhost() {
        runner.run(context -> {
            assertThat(context)
                    .hasSingleBean(DistlockConnectionDetails.class)
                    .hasSingleBean(DataRedisDistlockConnectionDetails.class);
            assertThat(options(context).uri()).isEqualTo("redis://localhost:6379");
            assertThat(options(context).ssl()).isFalse();
        });
    }

    @Test
    void whenSpringDataRedisIsAbsentThenPropertiesDetailsDefaultToLocalhost() {
        runner.withClassLoader(new FilteredClassLoader(
                        "org.springframework.data.redis", "org.springframework.boot.data.redis"))
                .run(context -> {
                    assertThat(context).hasSingleBean(PropertiesDistlockConnectionDetails.class);
                    assertThat(options(context).uri()).isEqualTo("redis://localhost:6379");
                });
    }

    @Test
    void whenDistlockUrlIsSetThenItWinsOverBootsRedis() {
        runner.withPropertyValues("spring.data.redis.host=boot", "distlock.redis.url=redis://mine:6390/3")
                .run(context -> {
                    assertThat(context).hasSingleBean(PropertiesDistlockConnectionDetails.class);
                    assertThat(options(context).uri()).isEqualTo("redis://mine:6390/3");
                });
    }

    @Test
    void whenOnlyBootsRedisIsSetThenItsSettingsAreUsed() {
        runner.withPropertyValues(
                        "spring.data.redis.host=boot",
                        "spring.data.redis.port=6391",
                        "spring.data.redis.database=2",
                        "spring.data.redis.username=u",
                        "spring.data.redis.password=p")
                .run(context -> {
                    LockClientOptions options = options(context);
                    assertThat(options.uri()).isEqualTo("redis://boot:6391/2");
                    assertThat(options.username()).isEqualTo("u");
                    assertThat(options.password()).isEqualTo("p");
                });
    }

    @Test
    void whenBootsClusterIsSetThenTheClientUsesCluster() {
        runner.withPropertyValues("spring.data.redis.cluster.nodes=c1:7000,c2:7001", "spring.data.redis.password=p")
                .run(context -> {
                    assertThat(options(context).clusterNodes()).containsExactly("redis://c1:7000", "redis://c2:7001");
                    assertThat(options(context).password()).isEqualTo("p");
                });
    }

    @Test
    void whenBootsMasterReplicaIsSetThenStartupFailsSayingWhatToDo() {
        runner.withPropertyValues("spring.data.redis.masterreplica.nodes=m:6379,r:6380")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .hasStackTraceContaining("static master/replica setup")
                        .hasStackTraceContaining("Set distlock.redis.url to the master"));
    }

    @Test
    void whenSpringDataRedisUrlIsRedissThenTheClientUsesTls() {
        runner.withPropertyValues("spring.data.redis.url=rediss://boot:6380").run(context -> {
            assertThat(options(context).ssl()).isTrue();
            assertThat(options(context).uri()).isEqualTo("rediss://boot:6380");
        });
    }

    @Test
    void whenSpringDataRedisSslIsEnabledThenTheClientUsesTls() {
        runner.withPropertyValues("spring.data.redis.host=boot", "spring.data.redis.ssl.enabled=true")
                .run(context -> assertThat(options(context).ssl()).isTrue());
    }

    @Test
    void whenDistlockOverridesAreSetThenTheyReplaceTheUrls() {
        runner.withPropertyValues(
                        "distlock.redis.url=rediss://a:b@h:1/3",
                        "distlock.redis.username=app",
                        "distlock.redis.password=pw",
                        "distlock.redis.database=5",
                        "distlock.redis.ssl.enabled=false")
                .run(context -> {
                    LockClientOptions options = options(context);
                    assertThat(options.uri()).isEqualTo("redis://h:1/5");
                    assertThat(options.username()).isEqualTo("app");
                    assertThat(options.password()).isEqualTo("pw");
                    assertThat(options.ssl()).isFalse();
                });
    }

    @Test
    void whenDistlockUrlCarriesCredentialsThenTheyAreUsed() {
        runner.withPropertyValues("distlock.redis.url=rediss://us%40er:p%3Ass@h:1")
                .run(context -> {
                    assertThat(options(context).username()).isEqualTo("us@er");
                    assertThat(options(context).password()).isEqualTo("p:ss");
                    assertThat(options(context).ssl()).isTrue();
                });
    }

    @Test
    void whenDeprecatedBooleanSslIsSetThenItStillTurnsTlsOn() {
        runner.withPropertyValues("distlock.redis.url=redis://h:1", "distlock.redis.ssl=true")
                .run(context -> assertThat(options(context).ssl()).isTrue());
    }

    @Test
    void whenDistlockSslBundleIsUnknownThenStartupFailsNamingIt() {
        runner.withPropertyValues("distlock.redis.url=redis://h:1", "distlock.redis.ssl.bundle=missing")
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining("missing"));
    }

    @Test
    void whenDistlockSentinelIsSetThenSentinelAndDataNodeSettingsAreUsed() {
        runner.withPropertyValues(
                        "distlock.redis.sentinel.master=mymaster",
                        "distlock.redis.sentinel.nodes=s1:26379",
                        "distlock.redis.sentinel.password=spw",
                        "distlock.redis.password=pw",
                        "distlock.redis.database=4",
                        "distlock.redis.ssl.enabled=true")
                .run(context -> {
                    LockClientOptions options = options(context);
                    assertThat(options.sentinelMaster()).isEqualTo("mymaster");
                    assertThat(options.sentinelNodes()).containsExactly("rediss://:spw@s1:26379");
                    assertThat(options.password()).isEqualTo("pw");
                    assertThat(options.database()).isEqualTo(4);
                    assertThat(options.ssl()).isTrue();
                });
    }

    @Test
    void whenDistlockClusterNodesUseRedissThenTheClusterUsesTls() {
        runner.withPropertyValues("distlock.redis.cluster.nodes=rediss://c1:7000,c2:7001")
                .run(context -> {
                    assertThat(options(context).clusterNodes()).containsExactly("rediss://c1:7000", "rediss://c2:7001");
                    assertThat(options(context).ssl()).isTrue();
                });
    }

    @Test
    void whenUserDefinesConnectionDetailsThenBothAdaptersBackOff() {
        runner.withPropertyValues("distlock.redis.url=redis://ignored:1", "spring.data.redis.host=ignored")
                .withBean(DistlockConnectionDetails.class, () -> new DistlockConnectionDetails() {
                    @Override
                    public Standalone getStandalone() {
                        return Standalone.of("container", 32768, 0);
                    }

                    @Override
                    public String getPassword() {
                        return "container-pw";
                    }
                })
                .run(context -> {
                    assertThat(context)
                            .hasSingleBean(DistlockConnectionDetails.class)
                            .doesNotHaveBean(PropertiesDistlockConnectionDetails.class)
                            .doesNotHaveBean(DataRedisDistlockConnectionDetails.class);
                    assertThat(options(context).uri()).isEqualTo("redis://container:32768");
                    assertThat(options(context).password()).isEqualTo("container-pw");
                });
    }

    @Test
    void whenUserDefinedConnectionDetailsWithoutSpringDataRedisThenTheyAreUsed() {
        runner.withClassLoader(new FilteredClassLoader(
                        "org.springframework.data.redis", "org.springframework.boot.data.redis"))
                .withBean(DistlockConnectionDetails.class, () -> new DistlockConnectionDetails() {
                    @Override
                    public Standalone getStandalone() {
                        return Standalone.of("container", 32768, 0);
                    }
                })
                .run(context -> assertThat(options(context).uri()).isEqualTo("redis://container:32768"));
    }

    @Test
    void whenServiceConnectionProvidesBootDetailsThenTheyAreUsed() {
        runner.withBean(DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {
                    @Override
                    public Standalone getStandalone() {
                        return Standalone.of("container", 32768, 1);
                    }
                })
                .run(context -> assertThat(options(context).uri()).isEqualTo("redis://container:32768/1"));
    }

    @Test
    void whenServiceConnectionProvidesBootDetailsWithoutSpringDataRedisThenTheyAreUsed() {
        // spring-boot-data-redis holds the Testcontainers and Docker Compose factories and needs no
        // spring-data-redis class for them; Boot's Redis auto-configuration is then off.
        runner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
                .withBean(DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {
                    @Override
                    public Standalone getStandalone() {
                        return Standalone.of("container", 32769, 0);
                    }

                    @Override
                    public String getPassword() {
                        return "container-pw";
                    }
                })
                .run(context -> {
                    assertThat(context).hasSingleBean(DataRedisDistlockConnectionDetails.class);
                    assertThat(options(context).uri()).isEqualTo("redis://container:32769");
                    assertThat(options(context).password()).isEqualTo("container-pw");
                });
    }

    @Test
    void whenRedLockNodesAreSetThenTheyShareCredentialsTlsNameListenersAndCustomizers() {
        runner.withPropertyValues(
                        "distlock.redis.url=rediss://h:1",
                        "distlock.redis.username=app",
                        "distlock.redis.password=pw",
                        "distlock.redis.client-name=orders",
                        "distlock.redlock.nodes=redis://a:1,redis://b:2,redis://c:3")
                .withBean(
                        DistlockClientCustomizer.class,
                        () -> builder -> builder.fairLockWaitTimeout(java.time.Duration.ofSeconds(9)))
                .withBean(LockListener.class, () -> new LockListener() {})
                .run(context -> {
                    List<LockClient> nodes =
                            context.getBean(RedLockClients.class).clients();
                    assertThat(nodes).hasSize(3).allSatisfy(node -> {
                        LockClientOptions options = node.getOptions();
                        assertThat(options.username()).isEqualTo("app");
                        assertThat(options.password()).isEqualTo("pw");
                        assertThat(options.ssl()).isTrue();
                        assertThat(options.sslOptions()).isNotNull();
                        assertThat(options.clientName()).isEqualTo("orders");
                        assertThat(options.fairLockWaitTimeout()).hasSeconds(9);
                        // The node's own lease-lost listener (a loss counts against the quorum, it does not
                        // lose the hold), then the application's listeners.
                        assertThat(options.listeners()).hasSize(2);
                        assertThat(options.listeners().get(0))
                                .isNotSameAs(context.getBean(HoldIndex.class).listener());
                        assertThat(options.listeners().get(1)).isSameAs(context.getBean(LockListener.class));
                    });
                    assertThat(nodes)
                            .extracting(node -> node.getOptions().uri())
                            .containsExactly("redis://a:1", "redis://b:2", "redis://c:3");
                });
    }
}
