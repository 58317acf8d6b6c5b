package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisSemaphore;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.spring.internal.actuator.DistlockEndpoint;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.SemaphoreReport;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * {@code @DistributedSemaphore} and {@code LockTemplate.withPermit} against a real Redis: at most N
 * bodies at once, the failure behaviour and startup checks of {@code @DistributedLock}, permits held
 * by {@code CompletionStage} bodies until they complete, meters and the endpoint.
 */
class DistributedSemaphoreTests {

    static final RedisServer redis = RedisServers.shared();

    private LockClient other;
    private ExecutorService pool;

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
        other = LockClient.create(redis.uri());
        pool = Executors.newFixedThreadPool(8);
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        other.close();
    }

    private ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(SemaphoreApp.class)
                .web(WebApplicationType.NONE)
                .properties("distlock.redis.url=" + redis.uri(), "management.endpoints.web.exposure.include=distlock")
                .properties(properties)
                .run();
    }

    /** Counts the bodies running at once. */
    public static class PartnerApi {

        // Static: the test reaches the bean through its class-based proxy, whose own fields are unused.
        static final AtomicInteger running = new AtomicInteger();
        static final AtomicInteger most = new AtomicInteger();
        static volatile CountDownLatch gate = new CountDownLatch(0);

        @DistributedSemaphore(key = "'partner-api'", permits = 2, waitTime = "10s")
        public void call() throws InterruptedException {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            Thread.sleep(100);
            running.decrementAndGet();
        }

        @DistributedSemaphore(name = "quota", permits = 1, waitTime = "100ms")
        public String quota() {
            return "ran";
        }

        @DistributedSemaphore(name = "quota", permits = 1, waitTime = "100ms", onFailure = OnFailure.SKIP)
        public String quotaOrSkip() {
            return "ran";
        }

        @DistributedSemaphore(name = "export", key = "#p0.length()", permits = 1)
        public void export(String file) {}

        @DistributedSemaphore(name = "async", permits = 1, waitTime = "0")
        public CompletionStage<String> async(CompletableFuture<String> work) {
            return work;
        }

        @DistributedSemaphore(name = "held", permits = 3, waitTime = "0")
        public void held() throws InterruptedException {
            gate.await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void whenManyCallersRunThenAtMostPermitsBodiesRunAtOnce() throws Exception {
        try (ConfigurableApplicationContext context = start()) {
            PartnerApi api = context.getBean(PartnerApi.class);
            PartnerApi.most.set(0);
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                calls.add(pool.submit(() -> {
                    api.call();
                    return null;
                }));
            }
            for (Future<?> call : calls) {
                call.get(30, TimeUnit.SECONDS);
            }
            assertThat(PartnerApi.most.get()).isEqualTo(2);
            assertThat(other.getSemaphore("DistributedSemaphoreTests.PartnerApi.call:partner-api")
                            .availablePermits())
                    .isEqualTo(2);
        }
    }

    @Test
    void whenNoPermitComesInTimeThenTheCallFailsAsADistributedLocksDoes() throws Exception {
        RedisSemaphore quota = other.getSemaphore("quota");
        quota.trySetPermits(1);
        String taken = quota.tryAcquire(0, 30, TimeUnit.SECONDS);
        try (ConfigurableApplicationContext context = start()) {
            PartnerApi api = context.getBean(PartnerApi.class);
            assertThatExceptionOfType(LockAcquisitionException.class)
                    .isThrownBy(api::quota)
                    .withMessageContaining("'quota'");
            assertThat(api.quotaOrSkip()).isNull();
            quota.release(taken);
            assertThat(api.quota()).isEqualTo("ran");
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("distlock.acquire")
                            .tags("lock.name", "quota", "lock.type", "semaphore", "outcome", "timeout")
                            .timer()
                            .count())
                    .isEqualTo(2);
            assertThat(meters.get("distlock.acquire")
                            .tags("lock.name", "quota", "lock.type", "semaphore", "outcome", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(1);
        }
    }

    @Test
    void whenTheKeyCannotBeEvaluatedThenTheErrorNamesTheMethodAndTheExpression() {
        try (ConfigurableApplicationContext context = start()) {
            PartnerApi api = context.getBean(PartnerApi.class);
            assertThatExceptionOfType(IllegalStateException.class)
                    .isThrownBy(() -> api.export(null))
                    .withMessageContaining("'#p0.length()'")
                    .withMessageContaining("PartnerApi.export");
        }
    }

    @Test
    void whenTheBodyReturnsACompletionStageThenThePermitIsHeldUntilItCompletes() throws Exception {
        try (ConfigurableApplicationContext context = start()) {
            PartnerApi api = context.getBean(PartnerApi.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> first = api.async(work).toCompletableFuture();
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> other.getSemaphore("async").takenPermits().size() == 1);
            CompletableFuture<String> second =
                    api.async(CompletableFuture.completedFuture("second")).toCompletableFuture();
            assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
                    .isThrownBy(() -> second.get(5, TimeUnit.SECONDS))
                    .withCauseInstanceOf(LockAcquisitionException.class);
            work.complete("first");
            assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("first");
            assertThat(other.getSemaphore("async").takenPermits()).isEmpty();
            assertThat(api.async(CompletableFuture.completedFuture("third"))
                            .toCompletableFuture()
                            .get(5, TimeUnit.SECONDS))
                    .isEqualTo("third");
        }
    }

    @Test
    void whenAPermitIsHeldThenTheEndpointAndTheActiveGaugeShowIt() throws Exception {
        try (ConfigurableApplicationContext context = start()) {
            PartnerApi api = context.getBean(PartnerApi.class);
            PartnerApi.gate = new CountDownLatch(1);
            Future<?> holding = pool.submit(() -> {
                api.held();
                return null;
            });
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> other.getSemaphore("held").takenPermits().size() == 1);
            List<SemaphoreReport> semaphores =
                    context.getBean(DistlockEndpoint.class).locks().semaphores();
            assertThat(semaphores).singleElement().satisfies(report -> {
                assertThat(report.name()).isEqualTo("held");
                assertThat(report.availablePermits()).isEqualTo(2);
                assertThat(report.permits()).singleElement().satisfies(permit -> {
                    assertThat(permit.permitId())
                            .isEqualTo(other.getSemaphore("held")
                                    .takenPermits()
                                    .get(0)
                                    .id());
                    assertThat(permit.method()).isEqualTo("DistributedSemaphoreTests.PartnerApi.held()");
                    assertThat(permit.remainingTtlMillis()).isPositive();
                });
            });
            assertThat(context.getBean(MeterRegistry.class)
                            .get("distlock.active")
                            .tags("lock.name", "held", "lock.type", "semaphore")
                            .gauge()
                            .value())
                    .isEqualTo(1.0);
            PartnerApi.gate.countDown();
            holding.get(5, TimeUnit.SECONDS);
            assertThat(context.getBean(DistlockEndpoint.class).locks().semaphores())
                    .isEmpty();
        }
    }

    @Test
    void whenTheTemplateTakesPermitsThenAtMostTheCountRunAndAFullSemaphoreIsReported() throws Exception {
        try (ConfigurableApplicationContext context = start()) {
            LockTemplate template = context.getBean(LockTemplate.class);
            String result = template.withPermit("reports", 1, () -> {
                LockResult<String> nested = template.tryWithPermit("reports", 1, Duration.ZERO, null, () -> "nested");
                assertThat(nested.wasExecuted()).isFalse();
                assertThat(LockContext.current().type()).isEqualTo(LockType.SEMAPHORE);
                return "outer";
            });
            assertThat(result).isEqualTo("outer");
            assertThat(other.getSemaphore("reports").availablePermits()).isEqualTo(1);
            assertThatExceptionOfType(LockAcquisitionException.class)
                    .isThrownBy(() -> template.withPermit(
                            "reports",
                            1,
                            Duration.ZERO,
                            null,
                            () -> template.withPermit("reports", 1, Duration.ZERO, null, () -> "x")));
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> template.withPermit("reports", 0, () -> "x"))
                    .withMessageContaining("'permits'");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> template.withPermit("reports", 1, null, Duration.ofSeconds(-5), () -> "x"))
                    .withMessageContaining("'leaseTime'");
            assertThatIllegalArgumentException().isThrownBy(() -> LockOptions.of(LockType.SEMAPHORE));
        }
    }

    @Test
    void whenRedisHoldsAnotherCountThenTheCountIsKept() throws Exception {
        other.getSemaphore("reports").trySetPermits(5);
        try (ConfigurableApplicationContext context = start()) {
            context.getBean(LockTemplate.class).withPermit("reports", 1, () -> "x");
            assertThat(other.getSemaphore("reports").availablePermits()).isEqualTo(5);
        }
    }

    // Startup checks, as for @DistributedLock.

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration.class,
                    DistlockAutoConfiguration.class,
                    DistlockAspectAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + redis.uri());

    private void assertStartupFails(Class<?> beanClass, String... fragments) {
        runner.withBean(beanClass).run(context -> {
            assertThat(context).hasFailed();
            for (String fragment : fragments) {
                assertThat(context.getStartupFailure()).hasStackTraceContaining(fragment);
            }
        });
    }

    static class Both {
        @DistributedLock
        @DistributedSemaphore(permits = 2)
        public void run() {}
    }

    @Test
    void whenAMethodHasBothAnnotationsThenStartupFails() {
        assertStartupFails(
                Both.class,
                "@DistributedSemaphore on DistributedSemaphoreTests.Both.run()",
                "also has @DistributedLock");
    }

    static class NoPermits {
        @DistributedSemaphore(permits = 0)
        public void run() {}
    }

    @Test
    void whenPermitsAreBelowOneThenStartupFails() {
        assertStartupFails(NoPermits.class, "NoPermits.run()", "permits must be at least 1");
    }

    static class BadKey {
        @DistributedSemaphore(key = "#id +", permits = 2)
        public void run(String id) {}
    }

    @Test
    void whenTheKeyHasASyntaxErrorThenStartupFailsNamingTheMethodAndExpression() {
        assertStartupFails(
                BadKey.class,
                "@DistributedSemaphore on DistributedSemaphoreTests.BadKey.run(String)",
                "'#id +'",
                "Invalid key expression");
    }

    static class BadLease {
        @DistributedSemaphore(permits = 2, leaseTime = "-5s")
        public void run() {}
    }

    @Test
    void whenTheLeaseIsNegativeThenStartupFails() {
        assertStartupFails(BadLease.class, "BadLease.run()", "leaseTime '-5s' is negative");
    }

    static class SemaphoreType {
        @DistributedLock(type = LockType.SEMAPHORE)
        public void run() {}
    }

    @Test
    void whenDistributedLockAsksForTypeSemaphoreThenStartupFails() {
        assertStartupFails(SemaphoreType.class, "SemaphoreType.run()", "use @DistributedSemaphore");
    }

    static class Private {
        @DistributedSemaphore(permits = 2)
        void run() {}
    }

    @Test
    void whenTheMethodIsNotPublicThenStartupFails() {
        assertStartupFails(
                Private.class, "@DistributedSemaphore on DistributedSemaphoreTests.Private.run()", "it must be public");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class SemaphoreApp {
        @Bean
        PartnerApi partnerApi() {
            return new PartnerApi();
        }
    }
}
