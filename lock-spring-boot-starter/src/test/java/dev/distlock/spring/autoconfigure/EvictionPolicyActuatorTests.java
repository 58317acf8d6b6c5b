package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.internal.actuator.DistlockEndpoint;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.EvictionPolicyReport;
import dev.distlock.spring.internal.actuator.DistlockHealthIndicator;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The health indicator and the {@code distlock} endpoint show each server's eviction policy; a
 * policy that may evict lock keys adds a warning to the health details and leaves the status UP.
 */
class EvictionPolicyActuatorTests {

    private static RedisServer evicting;
    private static RedisServer keeping;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistlockAutoConfiguration.class,
                    DistlockHealthAutoConfiguration.class,
                    DistlockEndpointAutoConfiguration.class))
            .withPropertyValues("management.endpoints.web.exposure.include=distlock");

    @BeforeAll
    static void startServers() {
        evicting = RedisServers.start("--maxmemory", "2mb", "--maxmemory-policy", "allkeys-lru");
        keeping = RedisServers.start("--maxmemory", "2mb", "--maxmemory-policy", "noeviction");
    }

    @AfterAll
    static void stopServers() {
        evicting.stop();
        keeping.stop();
    }

    @Test
    void whenRedisMayEvictLockKeysThenHealthStaysUpWithThePolicyAndAWarning() {
        runner.withPropertyValues("distlock.redis.url=" + evicting.uri()).run(context -> {
            DistlockHealthIndicator indicator = context.getBean(DistlockHealthIndicator.class);
            String server = "127.0.0.1:" + evicting.port();

            Health health = awaitPolicies(indicator);

            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails())
                    .containsEntry("evictionPolicies", Map.of(server, "allkeys-lru"))
                    .hasEntrySatisfying("evictionWarning", warning -> assertThat(warning)
                            .asString()
                            .contains(server + " (allkeys-lru)", "maxmemory-policy noeviction"));
            assertThat(context.getBean(DistlockEndpoint.class).locks().evictionPolicies())
                    .containsExactly(new EvictionPolicyReport(server, "allkeys-lru", true, null));
        });
    }

    @Test
    void whenRedisNeverEvictsThenHealthShowsThePolicyWithoutAWarning() {
        runner.withPropertyValues("distlock.redis.url=" + keeping.uri()).run(context -> {
            String server = "127.0.0.1:" + keeping.port();

            Health health = awaitPolicies(context.getBean(DistlockHealthIndicator.class));

            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails())
                    .containsEntry("evictionPolicies", Map.of(server, "noeviction"))
                    .doesNotContainKey("evictionWarning");
            assertThat(context.getBean(DistlockEndpoint.class).locks().evictionPolicies())
                    .containsExactly(new EvictionPolicyReport(server, "noeviction", false, null));
        });
    }

    @Test
    void whenARedLockNodeMayEvictThenItsHealthAndTheEndpointSaySo() {
        runner.withPropertyValues(
                        "distlock.redis.url=" + keeping.uri(),
                        "distlock.redlock.nodes=" + keeping.uri() + "," + evicting.uri() + "," + keeping.uri())
                .run(context -> {
                    CompositeHealthContributor redlock = (CompositeHealthContributor)
                            context.getBean("distlockHealthContributor", CompositeHealthContributor.class)
                                    .getContributor("redlock");
                    HealthIndicator node = (HealthIndicator) redlock.getContributor("node-1");
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                                    node.health(true).getDetails())
                            .containsEntry("evictionPolicies", Map.of("127.0.0.1:" + evicting.port(), "allkeys-lru"))
                            .containsKey("evictionWarning"));
                    assertThat(node.health(true).getStatus()).isEqualTo(Status.UP);
                    assertThat(context.getBean(DistlockEndpoint.class).locks().evictionPolicies())
                            .contains(new EvictionPolicyReport("127.0.0.1:" + evicting.port(), "allkeys-lru", true, 1));
                });
    }

    /** The first check connects; the policy is read right after, within a round trip. */
    private static Health awaitPolicies(DistlockHealthIndicator indicator) {
        return await().atMost(Duration.ofSeconds(10)).until(() -> indicator.health(true), health -> health.getDetails()
                .containsKey("evictionPolicies"));
    }
}
