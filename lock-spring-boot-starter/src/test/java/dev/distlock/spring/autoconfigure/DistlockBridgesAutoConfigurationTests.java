package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.integration.DistlockLockRegistry;
import dev.distlock.spring.shedlock.DistlockLockProvider;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.test.util.ReflectionTestUtils;

/** One test per condition of {@link DistlockIntegrationAutoConfiguration} and {@link DistlockShedLockAutoConfiguration}. */
class DistlockBridgesAutoConfigurationTests {

    private static final RedisServer redis = RedisServers.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistlockAutoConfiguration.class,
                    DistlockIntegrationAutoConfiguration.class,
                    DistlockShedLockAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + redis.uri());

    private static LockConfiguration job(String name) {
        return new LockConfiguration(ClockProvider.now(), name, Duration.ofSeconds(30), Duration.ZERO);
    }

    private static boolean exists(String key) {
        return redis.command("EXISTS", key).trim().equals("1");
    }

    @Test
    void whenBothLibrariesArePresentThenTheRegistryAndTheProviderUseTheClient() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(DistlockLockRegistry.class).hasSingleBean(DistlockLockProvider.class);
            String key = "auto:" + UUID.randomUUID();
            Lock lock = context.getBean(LockRegistry.class).obtain(key);
            lock.lock();
            assertThat(exists(key)).isTrue();
            lock.unlock();
            Optional<SimpleLock> run = context.getBean(LockProvider.class).lock(job(key));
            assertThat(run).isNotEmpty();
            // The default layout: a Distlock lock named after the job.
            assertThat(exists(key)).isTrue();
            run.get().unlock();
            assertThat(exists(key)).isFalse();
        });
    }

    @Test
    void whenRegistryPropertiesAreSetThenTheRegistryUsesThem() {
        runner.withPropertyValues("distlock.integration.lease-time=7s", "distlock.integration.fenced=true")
                .run(context -> {
                    DistlockLockRegistry registry = context.getBean(DistlockLockRegistry.class);
                    assertThat(ReflectionTestUtils.getField(registry, "leaseTime"))
                            .isEqualTo(Duration.ofSeconds(7));
                    String key = "auto:" + UUID.randomUUID();
                    Lock lock = registry.obtain(key);
                    lock.lock();
                    try {
                        assertThat(registry.getFencingToken(key)).isPresent();
                        long pttl = Long.parseLong(redis.command("PTTL", key).trim());
                        assertThat(pttl).isBetween(1L, 7000L);
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void whenTheLayoutIsShedLockRedisThenJobsUseShedLocksKeysInTheEnvironment() {
        runner.withPropertyValues("distlock.shedlock.layout=shedlock-redis", "distlock.shedlock.environment=blue")
                .run(context -> {
                    String name = "auto-" + UUID.randomUUID();
                    Optional<SimpleLock> run =
                            context.getBean(LockProvider.class).lock(job(name));
                    assertThat(run).isNotEmpty();
                    assertThat(exists("job-lock:blue:" + name)).isTrue();
                    assertThat(exists(name)).isFalse();
                    run.get().unlock();
                    assertThat(exists("job-lock:blue:" + name)).isFalse();
                });
    }

    @Test
    void whenABridgeIsDisabledThenOnlyItBacksOff() {
        runner.withPropertyValues("distlock.integration.enabled=false")
                .run(context ->
                        assertThat(context).doesNotHaveBean(LockRegistry.class).hasSingleBean(LockProvider.class));
        runner.withPropertyValues("distlock.shedlock.enabled=false")
                .run(context ->
                        assertThat(context).hasSingleBean(LockRegistry.class).doesNotHaveBean(LockProvider.class));
    }

    @Test
    void whenDistlockIsDisabledThenNeitherBridgeIsConfigured() {
        runner.withPropertyValues("distlock.enabled=false").run(context -> assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(LockRegistry.class)
                .doesNotHaveBean(LockProvider.class));
    }

    @Test
    void whenALibraryIsMissingThenItsBridgeIsNotConfigured() {
        runner.withClassLoader(new FilteredClassLoader(LockRegistry.class)).run(context -> assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(DistlockLockRegistry.class)
                .hasSingleBean(DistlockLockProvider.class));
        runner.withClassLoader(new FilteredClassLoader(LockProvider.class)).run(context -> assertThat(context)
                .hasNotFailed()
                .hasSingleBean(DistlockLockRegistry.class)
                .doesNotHaveBean(DistlockLockProvider.class));
    }

    @Test
    void whenTheApplicationDefinesItsOwnRegistryOrProviderThenTheBridgeBacksOff() {
        LockRegistry<?> mine = new DefaultLockRegistry();
        LockProvider myProvider = configuration -> Optional.empty();
        runner.withBean("myRegistry", LockRegistry.class, () -> mine)
                .withBean("myProvider", LockProvider.class, () -> myProvider)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(DistlockLockRegistry.class);
                    assertThat(context).doesNotHaveBean(DistlockLockProvider.class);
                    assertThat(context.getBean(LockRegistry.class)).isSameAs(mine);
                    assertThat(context.getBean(LockProvider.class)).isSameAs(myProvider);
                });
    }

    @Test
    void whenTwoLockClientsWithoutPrimaryThenNeitherBridgeIsConfigured() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DistlockIntegrationAutoConfiguration.class, DistlockShedLockAutoConfiguration.class))
                .withBean("firstClient", LockClient.class, () -> LockClient.create("redis://first:1"))
                .withBean("secondClient", LockClient.class, () -> LockClient.create("redis://second:2"))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(LockRegistry.class)
                        .doesNotHaveBean(LockProvider.class));
    }

    @Test
    void whenAPropertyIsInvalidThenStartupFailsNamingIt() {
        runner.withPropertyValues("distlock.integration.lease-time=-1s").run(context -> assertThat(context)
                .hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("distlock.integration.lease-time"));
        runner.withPropertyValues("distlock.shedlock.environment= ").run(context -> assertThat(context)
                .hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("distlock.shedlock.environment"));
    }

    @Test
    void whenBeanMethodsAreInspectedThenTheyBackOffOnlyOnTheLibrariesTypes() {
        List<String> backingOff = new ArrayList<>();
        for (Class<?> configuration :
                List.of(DistlockIntegrationAutoConfiguration.class, DistlockShedLockAutoConfiguration.class)) {
            for (Method method : configuration.getDeclaredMethods()) {
                if (AnnotatedElementUtils.hasAnnotation(method, Bean.class)) {
                    ConditionalOnMissingBean condition =
                            AnnotatedElementUtils.findMergedAnnotation(method, ConditionalOnMissingBean.class);
                    assertThat(condition).as(method.getName()).isNotNull();
                    for (Class<?> type : condition.value()) {
                        backingOff.add(type.getSimpleName());
                    }
                }
            }
        }
        assertThat(backingOff).containsExactlyInAnyOrder("LockRegistry", "LockProvider");
    }
}
