package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockEndpointAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockEventsAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockMetricsAutoConfiguration;
import dev.distlock.spring.internal.actuator.DistlockEndpoint;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies;
import dev.distlock.spring.internal.actuator.LockEventsReport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.security.Principal;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A lock force-unlocked through the endpoint while its guarded method runs: the operator's action
 * is logged with who, which lock and which holder, and the holder learns it as a lost lease (the
 * policy, {@code distlock.lease.lost}, a {@code lease-lost} event), with a watchdog lease and with an
 * explicit one.
 */
@ExtendWith(OutputCaptureExtension.class)
class ForceUnlockTests {

    static final RedisServer redis = RedisServers.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DistlockAutoConfiguration.class,
                    DistlockAspectAutoConfiguration.class,
                    DistlockMetricsAutoConfiguration.class,
                    DistlockEventsAutoConfiguration.class,
                    DistlockEndpointAutoConfiguration.class))
            .withPropertyValues(
                    "distlock.redis.url=" + redis.uri(),
                    "distlock.lease-lost-policy=throw",
                    "distlock.events.enabled=true",
                    "management.endpoints.web.exposure.include=distlock")
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withBean(HeldService.class);

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
    }

    @Test
    void whenAWatchdogHoldIsForceUnlockedThenTheOperatorIsLoggedAndTheHolderLosesItsLease(CapturedOutput output) {
        runner.run(context -> forceUnlockWhileHeld(context, output, false));
    }

    @Test
    void whenAnExplicitLeaseHoldIsForceUnlockedThenTheOperatorIsLoggedAndTheHolderLosesItsLease(CapturedOutput output) {
        runner.run(context -> forceUnlockWhileHeld(context, output, true));
    }

    private static void forceUnlockWhileHeld(
            AssertableApplicationContext context, CapturedOutput output, boolean leased) throws Exception {
        HeldService service = context.getBean(HeldService.class);
        CompletableFuture<String> result =
                CompletableFuture.supplyAsync(() -> leased ? service.holdLeased() : service.holdWatched());
        assertThat(service.entered().await(10, TimeUnit.SECONDS)).isTrue();

        DistlockEndpointReplies.ForceUnlockResult forced =
                context.getBean(DistlockEndpoint.class).forceUnlock("forced", new Operator("alice"));
        assertThat(forced.unlocked()).isTrue();
        assertThat(output.getOut())
                .contains("Force-unlocking lock 'forced'")
                .contains("alice")
                .contains("HeldService.hold");

        MeterRegistry registry = context.getBean(MeterRegistry.class);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                        registry.get("distlock.lease.lost").counter().count())
                .isEqualTo(1.0));
        assertThat(output.getOut()).contains("Lease of lock 'forced' was lost");
        LockEventsReport events =
                context.getBean(DistlockEndpoint.class).locks(0L).events();
        assertThat(events).isNotNull();
        assertThat(events.events()).extracting(LockEventsReport.Event::type).containsExactly("acquired", "lease-lost");

        service.proceed().countDown();
        assertThatExceptionOfType(ExecutionException.class)
                .isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
                .withCauseInstanceOf(LockLeaseExpiredException.class);
        assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
    }

    record Operator(String name) implements SecurityContext {

        @Override
        public Principal getPrincipal() {
            return () -> name;
        }

        @Override
        public boolean isUserInRole(String role) {
            return false;
        }
    }

    static class HeldService {

        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch proceed = new CountDownLatch(1);

        // Through methods: the fields of the class-based proxy the application gets are not set.
        public CountDownLatch entered() {
            return entered;
        }

        public CountDownLatch proceed() {
            return proceed;
        }

        @DistributedLock(name = "forced")
        public String holdWatched() {
            return await();
        }

        @DistributedLock(name = "forced", leaseTime = "60s")
        public String holdLeased() {
            return await();
        }

        private String await() {
            entered.countDown();
            try {
                proceed.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            return "done";
        }
    }
}
