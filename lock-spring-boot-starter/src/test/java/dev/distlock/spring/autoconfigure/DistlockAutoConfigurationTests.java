package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockListener;
import dev.distlock.spring.LockTemplate;
import dev.distlock.spring.internal.actuator.DistlockEndpoint;
import dev.distlock.spring.internal.actuator.DistlockHealthIndicator;
import dev.distlock.spring.internal.aspect.DistributedLockAdvisor;
import dev.distlock.spring.internal.aspect.ReactiveLockSupport;
import dev.distlock.spring.internal.config.RedLockClients;
import dev.distlock.spring.internal.hold.HoldIndex;
import dev.distlock.spring.internal.hold.LockExecutor;
import dev.distlock.spring.internal.hold.LockObserver;
import dev.distlock.spring.internal.observation.LockNameTagLimit;
import dev.distlock.spring.internal.observation.MicrometerLockObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class DistlockAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistlockAutoConfiguration.class,
                    DistlockAspectAutoConfiguration.class,
                    DistlockMetricsAutoConfiguration.class,
                    DistlockHealthAutoConfiguration.class,
                    DistlockEndpointAutoConfiguration.class))
            .withPropertyValues("management.endpoints.web.exposure.include=distlock");

    @Test
    void whenDefaultsThenEveryBeanIsCreated() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context)
                    .hasSingleBean(LockClient.class)
                    .hasSingleBean(LockTemplate.class)
                    .hasSingleBean(DistributedLockAdvisor.class)
                    .hasSingleBean(LockExecutor.class)
                    .hasSingleBean(HoldIndex.class)
                    .hasSingleBean(RedLockClients.class)
                    .hasSingleBean(ReactiveLockSupport.class)
                    .hasSingleBean(MicrometerLockObserver.class)
                    .hasSingleBean(DistlockHealthIndicator.class)
                    .hasBean("distlockHealthContributor")
                    .hasSingleBean(DistlockEndpoint.class)
                    .hasSingleBean(DistlockConnectionDetails.class);
            LockClient client = context.getBean(LockClient.class);
            assertThat(client.getOptions().uri()).isEqualTo("redis://localhost:6379");
            assertThat(client.getOptions().keyPrefix()).isEmpty();
            assertThat(context.getBean(RedLockClients.class).clients()).isEmpty();
        });
    }

    @Test
    void whenListenerBeansExistThenTheClientTellsTheHoldIndexFirstAndThenEachBeanByItsOrder() {
        OrderedListener later = new OrderedListener(2);
        OrderedListener sooner = new OrderedListener(1);
        runner.withBean("later", OrderedListener.class, () -> later)
                .withBean("sooner", OrderedListener.class, () -> sooner)
                .run(context -> assertThat(
                                context.getBean(LockClient.class).getOptions().listeners())
                        .containsExactly(context.getBean(HoldIndex.class).listener(), sooner, later));
    }

    private record OrderedListener(int order) implements LockListener, Ordered {

        @Override
        public int getOrder() {
            return order;
        }
    }

    @Test
    void whenDisabledThenNothingIsCreated() {
        runner.withPropertyValues("distlock.enabled=false")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> assertThat(context)
                        .doesNotHaveBean(LockClient.class)
                        .doesNotHaveBean(LockTemplate.class)
                        .doesNotHaveBean(DistributedLockAdvisor.class)
                        .doesNotHaveBean(LockObserver.class)
                        .doesNotHaveBean(DistlockHealthIndicator.class)
                        .doesNotHaveBean(DistlockEndpoint.class));
    }

    @Test
    void whenPropertiesSetThenClientUsesThem() {
        runner.withPropertyValues(
                        "distlock.redis.url=redis://cache.example:6380/2",
                        "distlock.redis.password=s3cr:t",
                        "distlock.redis.username=app",
                        "distlock.redis.ssl=true",
                        "distlock.redis.timeout=750ms",
                        "distlock.redis.client-name=orders",
                        "distlock.key-prefix=app:",
                        "distlock.watchdog-timeout=12s")
                .run(context -> {
                    var options = context.getBean(LockClient.class).getOptions();
                    assertThat(options.uri()).isEqualTo("rediss://cache.example:6380/2");
                    assertThat(options.username()).isEqualTo("app");
                    assertThat(options.password()).isEqualTo("s3cr:t");
                    assertThat(options.ssl()).isTrue();
                    assertThat(options.keyPrefix()).isEqualTo("app:");
                    assertThat(options.watchdogTimeout()).hasSeconds(12);
                    assertThat(options.commandTimeout()).hasMillis(750);
                    assertThat(options.clientName()).isEqualTo("orders");
                });
    }

    @Test
    void whenReconnectDelaysSetThenClientUsesThemAndDefaultsOtherwise() {
        runner.run(context -> {
            var options = context.getBean(LockClient.class).getOptions();
            assertThat(options.reconnectDelayMin()).isEqualTo(LockClientOptions.DEFAULT_RECONNECT_DELAY_MIN);
            assertThat(options.reconnectDelayMax()).isEqualTo(LockClientOptions.DEFAULT_RECONNECT_DELAY_MAX);
        });
        runner.withPropertyValues("distlock.redis.reconnect.min-delay=5ms", "distlock.redis.reconnect.max-delay=400ms")
                .run(context -> {
                    var options = context.getBean(LockClient.class).getOptions();
                    assertThat(options.reconnectDelayMin()).hasMillis(5);
                    assertThat(options.reconnectDelayMax()).hasMillis(400);
                });
    }

    @Test
    void whenReconnectMaxDelayIsShorterThanMinThenStartupFailsNamingTheProperty() {
        runner.withPropertyValues("distlock.redis.reconnect.min-delay=2s", "distlock.redis.reconnect.max-delay=1s")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("distlock.redis.reconnect.max-delay"));
        runner.withPropertyValues("distlock.redis.reconnect.min-delay=0s")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("distlock.redis.reconnect.min-delay"));
    }

    @Test
    void whenDatabaseOverridesUrlThenItIsUsed() {
        runner.withPropertyValues("distlock.redis.url=redis://h:1/3", "distlock.redis.database=5")
                .run(context -> assertThat(
                                context.getBean(LockClient.class).getOptions().uri())
                        .isEqualTo("redis://h:1/5"));
    }

    @Test
    void whenSentinelSetThenClientUsesSentinel() {
        runner.withPropertyValues(
                        "distlock.redis.sentinel.master=mymaster", "distlock.redis.sentinel.nodes=s1:26379,s2:26380")
                .run(context -> {
                    var options = context.getBean(LockClient.class).getOptions();
                    assertThat(options.sentinelMaster()).isEqualTo("mymaster");
                    assertThat(options.sentinelNodes()).containsExactly("redis://s1:26379", "redis://s2:26380");
                });
    }

    @Test
    void whenClusterSetThenClientUsesCluster() {
        runner.withPropertyValues("distlock.redis.cluster.nodes=c1:7000,redis://c2:7001")
                .run(context -> assertThat(
                                context.getBean(LockClient.class).getOptions().clusterNodes())
                        .containsExactly("redis://c1:7000", "redis://c2:7001"));
    }

    @Test
    void whenRedlockNodesSetThenOneClientPerNode() {
        runner.withPropertyValues("distlock.redlock.nodes=redis://a:1,redis://b:2,redis://c:3")
                .run(context -> assertThat(context.getBean(RedLockClients.class).clients())
                        .hasSize(3)
                        .extracting(c -> c.getOptions().uri())
                        .containsExactly("redis://a:1", "redis://b:2", "redis://c:3"));
    }

    @Test
    void whenSpringDataRedisPropertiesSetThenTheyAreUsed() {
        runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=redis.internal",
                        "spring.data.redis.port=6390",
                        "spring.data.redis.database=4",
                        "spring.data.redis.password=pw")
                .run(context -> {
                    var options = context.getBean(LockClient.class).getOptions();
                    assertThat(options.uri()).isEqualTo("redis://redis.internal:6390/4");
                    assertThat(options.password()).isEqualTo("pw");
                });
    }

    @Test
    void whenSpringDataRedisUrlSetThenItIsUsed() {
        runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.url=redis://data:6391")
                .run(context -> assertThat(
                                context.getBean(LockClient.class).getOptions().uri())
                        .isEqualTo("redis://data:6391"));
    }

    @Test
    void whenDataRedisConnectionDetailsPresentThenTheyAreUsed() {
        runner.withBean(DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {
                    @Override
                    public Standalone getStandalone() {
                        return Standalone.of("container", 32768, 1);
                    }
                })
                .run(context -> assertThat(
                                context.getBean(LockClient.class).getOptions().uri())
                        .isEqualTo("redis://container:32768/1"));
    }

    @Test
    void whenDistlockRedisAndSpringDataRedisSetThenDistlockWins() {
        runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=other", "distlock.redis.url=redis://mine:6379")
                .run(context -> assertThat(
                                context.getBean(LockClient.class).getOptions().uri())
                        .isEqualTo("redis://mine:6379"));
    }

    @Test
    void whenCustomizerPresentThenItAdjustsTheOptions() {
        runner.withBean(DistlockClientCustomizer.class, () -> builder -> builder.keyPrefix("custom:"))
                .run(context -> assertThat(
                                context.getBean(LockClient.class).getOptions().keyPrefix())
                        .isEqualTo("custom:"));
    }

    @Test
    void whenUserDefinesLockClientThenAutoConfiguredOneBacksOff() {
        runner.withBean("myClient", LockClient.class, () -> LockClient.create("redis://user-defined:1"))
                .run(context -> assertThat(
                                context.getBean(LockClient.class).getOptions().uri())
                        .isEqualTo("redis://user-defined:1"));
    }

    @Test
    void whenUserDefinesLockTemplateThenAutoConfiguredOneBacksOff() {
        LockTemplate mine = new dev.distlock.spring.internal.template.DefaultLockTemplate(
                null, java.time.Duration.ZERO, java.time.Duration.ZERO);
        runner.withBean("myTemplate", LockTemplate.class, () -> mine)
                .run(context -> assertThat(context.getBean(LockTemplate.class)).isSameAs(mine));
    }

    @Test
    void whenBeanMethodsAreInspectedThenOnlyPublicReplaceableTypesBackOff() {
        List<String> backingOff = new ArrayList<>();
        for (Class<?> configuration : List.of(
                DistlockAutoConfiguration.class,
                DistlockAutoConfiguration.DataRedisConnectionDetailsConfiguration.class,
                DistlockAspectAutoConfiguration.class,
                DistlockAspectAutoConfiguration.ReactorConfiguration.class,
                DistlockMetricsAutoConfiguration.class,
                DistlockObservationAutoConfiguration.ObservationConfiguration.class,
                DistlockObservationAutoConfiguration.ClientResourcesConfiguration.class,
                DistlockHealthAutoConfiguration.class,
                DistlockEndpointAutoConfiguration.class,
                DistlockWebMvcAutoConfiguration.class,
                DistlockEventsAutoConfiguration.class)) {
            for (Method method : configuration.getDeclaredMethods()) {
                if (AnnotatedElementUtils.hasAnnotation(method, Bean.class)
                        && AnnotatedElementUtils.hasAnnotation(method, ConditionalOnMissingBean.class)) {
                    backingOff.add(method.getReturnType().getSimpleName());
                }
            }
        }
        // Internal collaborators are not an extension point: replacing one would half-configure the starter.
        assertThat(backingOff)
                .containsExactlyInAnyOrder(
                        "LockClient",
                        "LockTemplate",
                        "PropertiesDistlockConnectionDetails",
                        "DataRedisDistlockConnectionDetails",
                        "HealthContributor",
                        "DistlockEndpoint",
                        "LockExceptionHandler");
    }

    @Test
    void whenHealthContributorBacksOffThenItDoesSoByNameAsSpringBootDoes() throws Exception {
        ConditionalOnMissingBean condition = DistlockHealthAutoConfiguration.class
                .getDeclaredMethod("distlockHealthContributor", LockClient.class, ObjectProvider.class)
                .getAnnotation(ConditionalOnMissingBean.class);
        assertThat(condition.name()).containsExactlyInAnyOrder("distlockHealthIndicator", "distlockHealthContributor");
        assertThat(condition.value()).isEmpty();
        assertThat(condition.type()).isEmpty();
    }

    @Test
    void whenUserDefinesAnInternalBeanTypeThenTheStarterStillCreatesItsOwn() {
        LockNameTagLimit mine = new LockNameTagLimit(7);
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean("myLimit", LockNameTagLimit.class, () -> mine)
                .run(context -> assertThat(context.getBeansOfType(LockNameTagLimit.class))
                        .containsKeys("myLimit", "distlockLockNameTagLimit"));
    }

    @Test
    void whenTwoLockClientsWithoutPrimaryThenConsumersBackOff() {
        runner.withBean("firstClient", LockClient.class, () -> LockClient.create("redis://first:1"))
                .withBean("secondClient", LockClient.class, () -> LockClient.create("redis://second:2"))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(LockTemplate.class)
                        .doesNotHaveBean(LockExecutor.class)
                        .doesNotHaveBean("distlockHealthContributor")
                        .doesNotHaveBean(DistlockEndpoint.class));
    }

    @Test
    void whenTwoLockClientsWithAPrimaryThenConsumersUseThePrimary() {
        runner.withBean(
                        "firstClient",
                        LockClient.class,
                        () -> LockClient.create("redis://first:1"),
                        bd -> bd.setPrimary(true))
                .withBean("secondClient", LockClient.class, () -> LockClient.create("redis://second:2"))
                .run(context -> assertThat(context)
                        .hasSingleBean(LockTemplate.class)
                        .hasSingleBean(LockExecutor.class)
                        .hasBean("distlockHealthContributor")
                        .hasSingleBean(DistlockEndpoint.class));
    }

    @Test
    void whenUserDefinesHealthIndicatorThenAutoConfiguredOneBacksOff() {
        HealthIndicator mine = () -> null;
        runner.withBean("distlockHealthIndicator", HealthIndicator.class, () -> mine)
                .run(context -> assertThat(context).doesNotHaveBean(DistlockHealthIndicator.class));
    }

    @Test
    void whenHealthIndicatorDisabledThenItIsNotCreated() {
        runner.withPropertyValues("management.health.distlock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(DistlockHealthIndicator.class));
    }

    @Test
    void whenEndpointNotExposedThenItIsNotCreated() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockEndpointAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(DistlockEndpoint.class));
    }

    @Test
    void whenNoMeterRegistryThenNoMetrics() {
        runner.run(context ->
                assertThat(context).doesNotHaveBean(LockObserver.class).hasSingleBean(LockTemplate.class));
    }

    @Test
    void whenNoMicrometerThenNoMetrics() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer"))
                .run(context ->
                        assertThat(context).doesNotHaveBean(LockObserver.class).hasSingleBean(LockClient.class));
    }

    @Test
    void whenNoActuatorThenNoEndpointAndNoHealth() {
        runner.withClassLoader(new FilteredClassLoader(Endpoint.class, HealthIndicator.class))
                .run(context -> assertThat(context)
                        .doesNotHaveBean(DistlockEndpoint.class)
                        .doesNotHaveBean(DistlockHealthIndicator.class)
                        .hasSingleBean(LockTemplate.class));
    }

    @Test
    void whenNoReactorThenNoReactiveSupport() {
        runner.withClassLoader(new FilteredClassLoader("reactor.core")).run(context -> assertThat(context)
                .doesNotHaveBean(ReactiveLockSupport.class)
                .hasSingleBean(DistributedLockAdvisor.class));
    }

    @Test
    void whenNoAspectJThenTheAdvisorStillApplies() {
        runner.withClassLoader(new FilteredClassLoader("org.aspectj"))
                .withBean(dev.distlock.spring.LockedService.class)
                .withBean("keyBean", dev.distlock.spring.LockedService.KeyBean.class)
                .run(context -> {
                    assertThat(context)
                            .hasSingleBean(DistributedLockAdvisor.class)
                            .hasBean("org.springframework.aop.config.internalAutoProxyCreator");
                    assertThat(org.springframework.aop.support.AopUtils.isAopProxy(
                                    context.getBean(dev.distlock.spring.LockedService.class)))
                            .isTrue();
                });
    }

    @Test
    void whenAspectOrderSetThenAdvisorUsesIt() {
        runner.withPropertyValues("distlock.aspect.order=42").run(context -> assertThat(
                        context.getBean(DistributedLockAdvisor.class).getOrder())
                .isEqualTo(42));
    }

    @Test
    void whenFailFastAndRedisUnreachableThenStartupFailsClearly() {
        int port = dev.distlock.core.test.RedisServers.freePort();
        runner.withPropertyValues(
                        "distlock.fail-fast=true",
                        "distlock.redis.url=redis://127.0.0.1:" + port,
                        "distlock.redis.timeout=500ms")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .isNotNull()
                        .satisfies(ex -> assertThat(context.getStartupFailure())
                                .hasStackTraceContaining(
                                        "Redis is unreachable (distlock.redis.url) and distlock.fail-fast=true")));
    }

    @Test
    void whenFailFastAndRedisFromSpringDataRedisIsUnreachableThenTheMessageNamesSpringDataRedis() {
        int port = dev.distlock.core.test.RedisServers.freePort();
        runner.withPropertyValues(
                        "distlock.fail-fast=true",
                        "spring.data.redis.url=redis://127.0.0.1:" + port,
                        "distlock.redis.timeout=500ms")
                .run(context -> assertThat(context.getStartupFailure())
                        .isNotNull()
                        .hasStackTraceContaining("Redis is unreachable (spring.data.redis.")
                        .satisfies(ex -> assertThat(startupException(ex).getAction())
                                .contains("spring.data.redis.password")
                                .doesNotContain("distlock.redis.password")));
    }

    private static dev.distlock.spring.internal.config.DistlockStartupException startupException(Throwable ex) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (cause instanceof dev.distlock.spring.internal.config.DistlockStartupException startup) {
                return startup;
            }
        }
        throw new AssertionError("No DistlockStartupException in " + ex);
    }

    @Test
    void whenRedisUnreachableWithoutFailFastThenStartupSucceeds() {
        int port = dev.distlock.core.test.RedisServers.freePort();
        runner.withPropertyValues("distlock.redis.url=redis://127.0.0.1:" + port)
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LockClient.class));
    }

    private String deprecation(String name) throws Exception {
        try (InputStream in = getClass()
                .getClassLoader()
                .getResourceAsStream("META-INF/additional-spring-configuration-metadata.json")) {
            for (JsonNode property : JsonMapper.builder().build().readTree(in).get("properties")) {
                if (property.get("name").asText().equals(name)) {
                    return property.get("deprecation").get("replacement").asText();
                }
            }
        }
        return null;
    }

    @Test
    void whenMetadataIsGeneratedThenEveryPropertyHasADescription() throws Exception {
        JsonMapper mapper = JsonMapper.builder().build();
        List<String> undocumented = new ArrayList<>();
        int count = 0;
        for (String resource : List.of(
                "META-INF/spring-configuration-metadata.json",
                "META-INF/additional-spring-configuration-metadata.json")) {
            try (InputStream in = getClass().getClassLoader().getResourceAsStream(resource)) {
                assertThat(in).as(resource).isNotNull();
                JsonNode root = mapper.readTree(in);
                for (JsonNode property : root.get("properties")) {
                    String name = property.get("name").asText();
                    if (name.startsWith("distlock.")) {
                        count++;
                        if (!property.has("description")
                                || property.get("description").asText().isBlank()) {
                            undocumented.add(name);
                        }
                    }
                }
            }
        }
        assertThat(count).isGreaterThanOrEqualTo(20);
        assertThat(undocumented).isEmpty();
        assertThat(deprecation("distlock.endpoint.force-unlock-enabled"))
                .isEqualTo("management.endpoint.distlock.access");
        assertThat(deprecation("distlock.redis.ssl")).isEqualTo("distlock.redis.ssl.enabled");
        assertThat(Map.of()).isEmpty();
    }
}
