package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * {@code distlock.locks.<name>.*}: a per-name value wins over the annotation attribute or template
 * option, which wins over {@code distlock.defaults.*}; bad values fail startup naming the property.
 */
class PerLockNameSettingsTests {

    static final RedisServer redis = RedisServers.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockAspectAutoConfiguration.class))
            .withBean(InvoiceService.class)
            .withPropertyValues("distlock.redis.url=" + redis.uri(), "distlock.defaults.wait-time=20s");

    LockClient other;
    long owner = RedisLock.newOwnerId();

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
        other = LockClient.create(redis.uri());
    }

    @AfterEach
    void tearDown() {
        other.close();
    }

    /** A bean whose code asks for long waits and no lease. */
    public static class InvoiceService {

        @DistributedLock(name = "invoice", waitTime = "10s")
        public LockType pay() {
            return LockContext.current().type();
        }

        @DistributedLock(name = "invoice", waitTime = "10s")
        public long leaseLeft(LockClient client) {
            return client.getLock("invoice").remainTimeToLive();
        }

        @DistributedLock
        public String report() {
            return LockContext.current().name();
        }
    }

    /** A read side that a per-name type must not turn into another kind. */
    public static class ReaderService {

        @DistributedLock(name = "invoice", type = LockType.READ)
        public void read() {}
    }

    /** A minimum hold that a per-name lease would undercut. */
    public static class MinHoldService {

        @DistributedLock(name = "invoice", minHoldTime = "10s")
        public void run() {}
    }

    private void holdElsewhere(String name) throws InterruptedException {
        assertThat(other.getLock(name).tryLock(0, 30_000, TimeUnit.MILLISECONDS, owner))
                .isTrue();
    }

    @Test
    void whenTheNameSetsAWaitThenItWinsOverTheAnnotationsWait() throws Exception {
        holdElsewhere("invoice");
        runner.withPropertyValues("distlock.locks.invoice.wait-time=100ms").run(context -> {
            long start = System.nanoTime();
            assertThatExceptionOfType(LockAcquisitionException.class)
                    .isThrownBy(() -> context.getBean(InvoiceService.class).pay())
                    .withMessageContaining("PT0.1S");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        });
    }

    @Test
    void whenAnEnvironmentVariableSetsTheWaitThenItReachesTheLowerCaseName() throws Exception {
        holdElsewhere("invoice");
        runner.withInitializer(context -> context.getEnvironment()
                        .getPropertySources()
                        .addFirst(new SystemEnvironmentPropertySource(
                                "test-systemEnvironment", Map.of("DISTLOCK_LOCKS_INVOICE_WAITTIME", "100ms"))))
                .run(context -> assertThatExceptionOfType(LockAcquisitionException.class)
                        .isThrownBy(() -> context.getBean(InvoiceService.class).pay())
                        .withMessageContaining("PT0.1S"));
    }

    @Test
    void whenTheNameSetsALeaseAndATypeThenTheMethodHoldsWithThem() {
        runner.withPropertyValues("distlock.locks.invoice.lease-time=4s", "distlock.locks.invoice.type=fair")
                .run(context -> {
                    InvoiceService service = context.getBean(InvoiceService.class);
                    assertThat(service.leaseLeft(context.getBean(LockClient.class)))
                            .isBetween(1L, 4_000L);
                    assertThat(service.pay()).isEqualTo(LockType.FAIR);
                });
    }

    @Test
    void whenANameHasDotsAndCapitalsThenTheBracketedKeyReachesIt() throws Exception {
        holdElsewhere("PerLockNameSettingsTests.InvoiceService.report");
        runner.withPropertyValues("distlock.locks[PerLockNameSettingsTests.InvoiceService.report].wait-time=0")
                .run(context -> {
                    long start = System.nanoTime();
                    assertThatExceptionOfType(LockAcquisitionException.class)
                            .isThrownBy(
                                    () -> context.getBean(InvoiceService.class).report());
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
                });
    }

    @Test
    void whenTheNameSetsOnlyALeaseThenTheWaitStillComesFromTheCodeThenTheDefaults() throws Exception {
        holdElsewhere("invoice");
        runner.withPropertyValues("distlock.locks.invoice.lease-time=4s").run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            long start = System.nanoTime();
            // The options' wait (200 ms) stays: only the lease is set for "invoice".
            assertThat(template.tryExecute(
                                    "invoice", LockOptions.DEFAULTS.withWaitTime(Duration.ofMillis(200)), () -> "x")
                            .wasExecuted())
                    .isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        });
    }

    @Test
    void whenTheNameSetsAWaitThenItWinsOverTheTemplatesOptionsForTheMetricsName() throws Exception {
        holdElsewhere("invoice:42");
        runner.withPropertyValues("distlock.locks.invoice.wait-time=100ms").run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            long start = System.nanoTime();
            assertThatExceptionOfType(LockAcquisitionException.class)
                    .isThrownBy(() -> template.execute(
                            "invoice",
                            "invoice:42",
                            LockOptions.DEFAULTS.withWaitTime(Duration.ofSeconds(10)),
                            () -> "x"));
            assertThat(template.tryExecute("invoice", "invoice:42", Duration.ofSeconds(10), () -> "x")
                            .wasExecuted())
                    .isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            LockResult<LockType> fair = template.tryExecute(
                    "ledger", LockOptions.DEFAULTS, () -> LockContext.current().type());
            assertThat(fair.getValue()).isEqualTo(LockType.REENTRANT);
        });
    }

    @Test
    void whenTheNameSetsATypeThenTheTemplatesReentrantCallTakesIt() {
        runner.withPropertyValues("distlock.locks.ledger.type=FAIR").run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            assertThat(template.execute("ledger", () -> LockContext.current().type()))
                    .isEqualTo(LockType.FAIR);
            assertThatExceptionOfType(IllegalStateException.class)
                    .isThrownBy(() -> template.execute("ledger", LockOptions.of(LockType.WRITE), () -> "x"))
                    .withMessageContaining("distlock.locks.ledger.type=FAIR conflicts with its type WRITE");
        });
    }

    @Test
    void whenANegativeLeaseOtherThanMinusOneIsSetThenStartupFailsNamingTheProperty() {
        runner.withPropertyValues("distlock.locks.invoice.lease-time=-5s")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("distlock.locks.invoice.lease-time")
                        .hasStackTraceContaining("-1 for a watchdog-renewed lease"));
    }

    @Test
    void whenABracketedNameHasABadWaitThenStartupFailsNamingItsProperty() {
        runner.withPropertyValues("distlock.locks[Billing.run].wait-time=-2s")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("distlock.locks[Billing.run].wait-time"));
    }

    @Test
    void whenTheNameSetsAReadWriteSideThenStartupFailsNamingTheProperty() {
        runner.withPropertyValues("distlock.locks.invoice.type=read")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("distlock.locks.invoice.type")
                        .hasStackTraceContaining("Use REENTRANT or FAIR"));
    }

    @Test
    void whenTheNamesTypeConflictsWithAnAnnotationsTypeThenStartupFailsNamingBoth() {
        runner.withBean(ReaderService.class)
                .withPropertyValues("distlock.locks.invoice.type=fair")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("ReaderService.read()")
                        .hasStackTraceContaining("distlock.locks.invoice.type=FAIR conflicts with its type READ"));
    }

    @Test
    void whenTheNamesLeaseUndercutsTheMinimumHoldThenTheFailureNamesTheProperty() {
        runner.withBean(MinHoldService.class)
                .withPropertyValues("distlock.locks.invoice.lease-time=2s")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("MinHoldService.run()")
                        .hasStackTraceContaining("distlock.locks.invoice.lease-time PT2S is shorter than minHoldTime"));
    }
}
