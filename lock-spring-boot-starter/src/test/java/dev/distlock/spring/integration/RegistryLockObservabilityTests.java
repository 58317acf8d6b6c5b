package dev.distlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockListener;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockEndpointAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockEventsAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockMetricsAutoConfiguration;
import dev.distlock.spring.internal.actuator.DistlockEndpoint;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.HeldLockReport;
import dev.distlock.spring.internal.actuator.LockEventsReport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Registry locks are measured, listed and heard like the annotation's: in Spring Integration's
 * {@code RedisLockRegistry} layout, which core keeps no holds of, as in Distlock's.
 */
class RegistryLockObservabilityTests {

    private static final RedisServer redis = RedisServers.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistlockAutoConfiguration.class,
                    DistlockEventsAutoConfiguration.class,
                    DistlockMetricsAutoConfiguration.class,
                    DistlockEndpointAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withBean(RecordingListener.class, RecordingListener::new)
            .withPropertyValues(
                    "distlock.redis.url=" + redis.uri(),
                    "distlock.watchdog.timeout=3s",
                    "distlock.events.enabled=true",
                    "management.endpoints.web.exposure.include=distlock");

    /** Hears the client's lock events of the names it is asked about. */
    static final class RecordingListener implements LockListener {

        final List<String> heard = new CopyOnWriteArrayList<>();

        @Override
        public void onAcquired(String lockName, long ownerId, long waitNanos) {
            heard.add("acquired " + lockName);
        }

        @Override
        public void onTimeout(String lockName, long ownerId, long waitNanos) {
            heard.add("timeout " + lockName);
        }

        @Override
        public void onReleasing(String lockName, long ownerId) {
            heard.add("releasing " + lockName);
        }

        @Override
        public void onReleased(String lockName, long ownerId) {
            heard.add("released " + lockName);
        }

        @Override
        public void onLeaseLost(String lockName, long ownerId) {
            heard.add("lease-lost " + lockName);
        }

        List<String> of(String name) {
            return heard.stream().filter(event -> event.endsWith(" " + name)).toList();
        }
    }

    private static DistlockLockRegistry compatible(AssertableApplicationContext context, String registryKey) {
        return DistlockLockRegistry.compatibleWithSpringIntegrationRedis(
                context.getBean(LockClient.class), registryKey);
    }

    private static @Nullable HeldLockReport listed(AssertableApplicationContext context, String name) {
        return context.getBean(DistlockEndpoint.class).locks().held().stream()
                .filter(held -> held.name().equals(name))
                .findFirst()
                .orElse(null);
    }

    private static long count(MeterRegistry meters, String meter, String name, String... tags) {
        Timer timer = meters.find(meter).tag("lock.name", name).tags(tags).timer();
        return timer == null ? 0 : timer.count();
    }

    private static double gauge(MeterRegistry meters, String meter, String name) {
        var gauge = meters.find(meter).tag("lock.name", name).gauge();
        return gauge == null ? -1 : gauge.value();
    }

    @Test
    void whenASpringIntegrationLayoutLockIsHeldThenTheEndpointListsItAsAReentrantLockUnderItsRedisKey() {
        runner.run(context -> {
            String registryKey = "obs-" + UUID.randomUUID();
            String name = registryKey + ":orders";
            Lock lock = compatible(context, registryKey).obtain("orders");
            lock.lock();
            try {
                HeldLockReport held = listed(context, name);
                assertThat(held).as("listed while held").isNotNull();
                assertThat(held.key()).isEqualTo(name);
                assertThat(held.type()).isEqualTo("reentrant");
                assertThat(held.ownerThread()).isEqualTo(Thread.currentThread().getName());
                assertThat(held.ownerId()).isEqualTo(Thread.currentThread().getId());
                assertThat(held.holdCount()).isEqualTo(1);
                assertThat(held.watchdog()).isTrue();
                assertThat(held.remainingTtlMillis()).isBetween(1L, 3_000L);
                assertThat(held.method()).contains("RedisLockRegistry layout").contains(registryKey);
                lock.lock();
                assertThat(listed(context, name).holdCount()).isEqualTo(2);
                lock.unlock();
                assertThat(listed(context, name).holdCount()).isEqualTo(1);
                assertThat(context.getBean(DistlockEndpoint.class).lock(name).localHolds())
                        .extracting(HeldLockReport::name)
                        .containsExactly(name);
            } finally {
                lock.unlock();
            }
            assertThat(listed(context, name)).as("listed after release").isNull();
        });
    }

    @Test
    void whenASpringIntegrationLayoutLockIsTakenAndReleasedThenItIsMeteredAndHeardLikeOtherLocks() {
        runner.run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            RecordingListener listener = context.getBean(RecordingListener.class);
            String registryKey = "obs-" + UUID.randomUUID();
            String name = registryKey + ":jobs";
            DistlockLockRegistry registry = compatible(context, registryKey);
            Lock lock = registry.obtain("jobs");

            assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
            try {
                assertThat(gauge(meters, "distlock.active", name)).isEqualTo(1.0);
                assertThat(count(meters, "distlock.acquire", name, "outcome", "acquired"))
                        .isEqualTo(1);
            } finally {
                lock.unlock();
            }
            assertThat(gauge(meters, "distlock.active", name)).isZero();
            assertThat(count(meters, "distlock.held", name)).isEqualTo(1);
            assertThat(listener.of(name)).containsExactly("acquired " + name, "releasing " + name, "released " + name);
            LockEventsReport events =
                    context.getBean(DistlockEndpoint.class).locks(0L).events();
            assertThat(events.events())
                    .filteredOn(event -> event.name().equals(name))
                    .extracting(LockEventsReport.Event::type)
                    .containsExactly("acquired", "released");

            // Another registry is another holder: a waiter here times out, measured and heard.
            DistlockLockRegistry other = compatible(context, registryKey);
            Lock taken = other.obtain("jobs");
            taken.lock();
            try {
                assertThat(lock.tryLock(50, TimeUnit.MILLISECONDS)).isFalse();
            } finally {
                taken.unlock();
            }
            assertThat(count(meters, "distlock.acquire", name, "outcome", "timeout"))
                    .isEqualTo(1);
            assertThat(listener.of(name)).contains("timeout " + name);
        });
    }

    @Test
    void whenASpringIntegrationLayoutLockLosesItsKeyThenTheLossIsCountedHeardAndUnlisted() {
        runner.run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            RecordingListener listener = context.getBean(RecordingListener.class);
            String registryKey = "obs-" + UUID.randomUUID();
            String name = registryKey + ":lost";
            Lock lock = compatible(context, registryKey).obtain("lost");
            lock.lock();
            redis.command("DEL", name);
            // The watchdog renews every second (a third of 3s) and finds the key gone.
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> meters.find("distlock.lease.lost")
                                    .tag("lock.name", name)
                                    .counter()
                                    .count()
                            == 1.0);
            assertThat(listener.of(name)).contains("lease-lost " + name);
            assertThat(listed(context, name)).isNull();
            assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
            assertThat(meters.find("distlock.lease.lost")
                            .tag("lock.name", name)
                            .counter()
                            .count())
                    .as("counted once")
                    .isEqualTo(1.0);
            assertThat(gauge(meters, "distlock.active", name)).isZero();
            assertThat(count(meters, "distlock.held", name)).isEqualTo(1);
        });
    }

    @Test
    void whenADistlockLayoutRegistryLockIsTakenAndReleasedThenItIsMeteredToo() {
        runner.run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            String name = "obs-" + UUID.randomUUID();
            Lock lock = new DistlockLockRegistry(context.getBean(LockClient.class)).obtain(name);
            lock.lock();
            try {
                lock.lock();
                lock.unlock();
                assertThat(gauge(meters, "distlock.active", name)).isEqualTo(1.0);
                assertThat(listed(context, name)).as("core lists it").isNotNull();
            } finally {
                lock.unlock();
            }
            assertThat(count(meters, "distlock.acquire", name, "outcome", "acquired"))
                    .as("the outermost acquisition only")
                    .isEqualTo(1);
            assertThat(count(meters, "distlock.held", name)).isEqualTo(1);
            assertThat(gauge(meters, "distlock.active", name)).isZero();
        });
    }
}
