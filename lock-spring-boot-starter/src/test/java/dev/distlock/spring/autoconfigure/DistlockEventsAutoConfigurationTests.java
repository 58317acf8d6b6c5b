package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.LockTemplate;
import dev.distlock.spring.internal.actuator.DistlockEndpoint;
import dev.distlock.spring.internal.actuator.LockEventsReport;
import dev.distlock.spring.internal.observation.LockEventLog;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class DistlockEventsAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistlockAutoConfiguration.class,
                    DistlockEventsAutoConfiguration.class,
                    DistlockEndpointAutoConfiguration.class))
            .withPropertyValues(
                    "management.endpoints.web.exposure.include=distlock",
                    "distlock.redis.url=" + RedisServers.shared().uri());

    @Test
    void whenNotEnabledThenNoEventsAreKeptAndTheEndpointSaysSo() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(LockEventLog.class);
            LockEventsReport events =
                    context.getBean(DistlockEndpoint.class).locks(0L).events();
            assertThat(events).isNotNull();
            assertThat(events.recording()).isFalse();
            assertThat(events.events()).isEmpty();
        });
    }

    @Test
    void whenEnabledThenTheClientReportsToTheLogAndTheEndpointListsTheEvents() {
        runner.withPropertyValues(
                        "distlock.events.enabled=true", "distlock.events.capacity=50", "distlock.events.retention=30s")
                .run(context -> {
                    LockEventLog log = context.getBean(LockEventLog.class);
                    assertThat(log.capacity()).isEqualTo(50);
                    assertThat(log.retention()).isEqualTo(Duration.ofSeconds(30));
                    RedisLock lock = context.getBean(LockClient.class).getLock("events-auto");
                    lock.lock();
                    lock.unlock();

                    DistlockEndpoint endpoint = context.getBean(DistlockEndpoint.class);
                    assertThat(endpoint.locks().events())
                            .as("events only when asked for")
                            .isNull();
                    LockEventsReport report = endpoint.locks(0L).events();
                    assertThat(report.recording()).isTrue();
                    assertThat(report.retentionMillis()).isEqualTo(30_000);
                    assertThat(report.events())
                            .filteredOn(e -> e.name().equals("events-auto"))
                            .extracting(LockEventsReport.Event::type)
                            .containsExactly("acquired", "released");
                    LockEventsReport.Event acquired = report.events().get(0);
                    assertThat(acquired.thread())
                            .isEqualTo(Thread.currentThread().getName());
                    assertThat(acquired.ownerId())
                            .isEqualTo(Thread.currentThread().getId());
                    assertThat(acquired.waitMillis()).isNotNull().isGreaterThanOrEqualTo(0.0);
                    assertThat(acquired.time())
                            .isCloseTo(System.currentTimeMillis(), org.assertj.core.data.Offset.offset(10_000.0));
                    assertThat(endpoint.locks(report.lastSequence()).events().events())
                            .isEmpty();
                });
    }

    @Test
    void whenEnabledThenASemaphorePermitIsListedWithItsLockType() {
        runner.withPropertyValues("distlock.events.enabled=true").run(context -> {
            String name = "events-permit-" + System.nanoTime();
            String result = context.getBean(LockTemplate.class).withPermit(name, 2, () -> "ran");
            assertThat(result).isEqualTo("ran");

            LockEventsReport report =
                    context.getBean(DistlockEndpoint.class).locks(0L).events();
            assertThat(report.events())
                    .filteredOn(e -> e.name().equals(name))
                    .extracting(LockEventsReport.Event::type, LockEventsReport.Event::lockType)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("acquired", "semaphore"),
                            org.assertj.core.groups.Tuple.tuple("released", "semaphore"));
            LockEventsReport.Event acquired = report.events().stream()
                    .filter(e -> e.name().equals(name))
                    .findFirst()
                    .orElseThrow();
            assertThat(acquired.thread()).isEqualTo(Thread.currentThread().getName());
            assertThat(acquired.waitMillis()).isNotNull().isGreaterThanOrEqualTo(0.0);
            assertThat(report.events())
                    .filteredOn(e -> e.name().equals(name) && e.type().equals("released"))
                    .singleElement()
                    .satisfies(released -> assertThat(released.time()).isGreaterThanOrEqualTo(acquired.time()));

            RedisLock lock = context.getBean(LockClient.class).getLock(name + "-lock");
            lock.lock();
            lock.unlock();
            assertThat(context.getBean(DistlockEndpoint.class)
                            .locks(0L)
                            .events()
                            .events())
                    .as("a lock's events, heard by core's listener, name no lock type")
                    .filteredOn(e -> e.name().equals(name + "-lock"))
                    .hasSize(2)
                    .allSatisfy(e -> assertThat(e.lockType()).isNull());
        });
    }

    @Test
    void whenEnabledThenTheLogUsesTheConfiguredCapacity() {
        runner.withPropertyValues("distlock.events.enabled=true", "distlock.events.capacity=3")
                .run(context -> assertThat(context)
                        .getBean(LockEventLog.class)
                        .satisfies(log -> assertThat(log.capacity()).isEqualTo(3)));
    }

    @Test
    void whenDistlockIsDisabledThenNoLogIsCreated() {
        runner.withPropertyValues("distlock.enabled=false", "distlock.events.enabled=true")
                .run(context -> assertThat(context).doesNotHaveBean(LockEventLog.class));
    }

    @Test
    void whenCapacityIsOutOfRangeThenStartupFailsNamingTheProperty() {
        runner.withPropertyValues("distlock.events.enabled=true", "distlock.events.capacity=0")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("'distlock.events.capacity' must be between 1 and 100000, was 0"));
    }
}
