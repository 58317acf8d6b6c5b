package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Lock names in meters stay few: a metrics name apart from the key, and a cap on the name tag. */
class MetricsCardinalityTests {

    static final RedisServer redis = RedisServers.shared();

    private LockClient other;

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
        other = LockClient.create(redis.uri());
    }

    @AfterEach
    void tearDown() {
        other.close();
    }

    private ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(MetricsApp.class)
                .web(WebApplicationType.NONE)
                .properties("distlock.redis.url=" + redis.uri())
                .properties(properties)
                .run();
    }

    private static Set<String> nameTags(MeterRegistry registry) {
        Set<String> names = new TreeSet<>();
        for (Meter meter : registry.getMeters()) {
            if (meter.getId().getName().startsWith("distlock.") && meter.getId().getTag("lock.name") != null) {
                names.add(meter.getId().getTag("lock.name"));
            }
        }
        return names;
    }

    @Test
    void whenTemplateIsGivenAMetricsNameThenKeysDoNotCreateMeters() {
        try (ConfigurableApplicationContext context = start()) {
            LockTemplate template = context.getBean(LockTemplate.class);
            for (int tenant = 0; tenant < 5; tenant++) {
                String key = "invoice:tenant-" + tenant;
                boolean heldElsewhere = template.execute("invoice", key, () -> {
                    try {
                        return !other.getLock(key).tryLock(0, 1_000, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                });
                assertThat(heldElsewhere).as("the key is the Redis lock").isTrue();
            }
            assertThat(template.tryExecute("invoice", "invoice:tenant-9", java.time.Duration.ZERO, () -> "x")
                            .wasExecuted())
                    .isTrue();
            assertThat(nameTags(context.getBean(MeterRegistry.class))).containsExactly("invoice");
        }
    }

    @Test
    void whenMoreLockNamesThanTheCapThenTheRestAreTaggedOther() {
        try (ConfigurableApplicationContext context = start("distlock.metrics.max-names=2")) {
            LockTemplate template = context.getBean(LockTemplate.class);
            for (String key : new String[] {"a", "b", "c", "d", "a"}) {
                template.execute(key, () -> null);
            }
            assertThat(nameTags(context.getBean(MeterRegistry.class))).containsExactly("a", "b", "other");
        }
    }

    @Test
    void whenNamesPastTheCapAreHeldAtOnceThenTheOtherGaugeCountsThemAll() {
        try (ConfigurableApplicationContext context = start("distlock.metrics.max-names=1")) {
            LockTemplate template = context.getBean(LockTemplate.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            template.execute("a", () -> null);
            // "b" and "c" are both tagged other; hold both, then count what the other gauge shows.
            Double active = template.execute(
                    "b",
                    () -> template.execute("c", () -> registry.get("distlock.active")
                            .tag("lock.name", "other")
                            .gauge()
                            .value()));
            assertThat(active)
                    .as("distlock.active{lock.name=other} with b and c held")
                    .isEqualTo(2.0);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class MetricsApp {}
}
