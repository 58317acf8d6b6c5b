package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockFailureAnalyzer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * One lease rule everywhere ({@code -1} is the watchdog, any other negative fails naming where it
 * was written), failures that blame the property when the value came from one, and one startup
 * failure that lists every bad method.
 */
class LeaseRuleAndBlameTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration.class,
                    DistlockAutoConfiguration.class,
                    DistlockAspectAutoConfiguration.class));

    static class NegativeLease {
        @DistributedLock(name = "n", leaseTime = "-5s")
        public void run() {}
    }

    static class WatchdogLease {
        @DistributedLock(name = "w", leaseTime = "-1")
        public void run() {}
    }

    static class DefaultLease {
        @DistributedLock(name = "d")
        public void run() {}
    }

    static class MinHoldOverDefaultLease {
        @DistributedLock(name = "m", minHoldTime = "5s")
        public void run() {}
    }

    static class TwoBadMethods {
        @DistributedLock(name = "a", leaseTime = "-2s")
        public void first() {}

        @DistributedLock(name = "b", waitTime = "soon")
        public void second() {}
    }

    static class PrivateMethod {
        @DistributedLock(name = "p")
        private void run() {}

        public void call() {
            run();
        }
    }

    @Test
    void whenAnnotationLeaseIsNegativeOtherThanMinusOneThenStartupFailsNamingTheAttribute() {
        runner.withBean(NegativeLease.class).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = analyze(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .contains("NegativeLease.run(): leaseTime")
                    .contains("leaseTime '-5s' is negative")
                    .contains("\"-1\" for a watchdog-renewed lease");
            assertThat(analysis.getAction()).contains("Fix the @DistributedLock attribute");
        });
    }

    @Test
    void whenAnnotationLeaseIsMinusOneThenTheWatchdogIsUsed() {
        runner.withBean(WatchdogLease.class).run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void whenDefaultLeaseIsNegativeOtherThanMinusOneThenStartupFailsNamingTheProperty() {
        runner.withBean(DefaultLease.class)
                .withPropertyValues("distlock.defaults.lease-time=-5s")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                            .hasMessageContaining("distlock.defaults.lease-time");
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("-1 for a watchdog-renewed lease");
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("DistlockProperties");
                });
        runner.withPropertyValues("distlock.defaults.lease-time=0s")
                .run(context -> assertThat(context.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("distlock.defaults.lease-time"));
        runner.withBean(DefaultLease.class)
                .withPropertyValues("distlock.defaults.lease-time=-1")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void whenPerNameLeaseIsNegativeThenStartupFailsNamingThatProperty() {
        runner.withBean(DefaultLease.class)
                .withPropertyValues("distlock.locks.d.lease-time=-3s")
                .run(context -> assertThat(context.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("distlock.locks.d.lease-time"));
    }

    @Test
    void whenDefaultLeaseIsShorterThanMinHoldThenThePropertyIsBlamedNotTheAnnotation() {
        runner.withBean(MinHoldOverDefaultLease.class)
                .withPropertyValues("distlock.defaults.lease-time=2s")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .contains("MinHoldOverDefaultLease.run()")
                            .contains("distlock.defaults.lease-time PT2S is shorter than minHoldTime PT5S");
                    assertThat(analysis.getAction())
                            .contains("Set distlock.defaults.lease-time")
                            .doesNotContain("attribute named above");
                });
    }

    @Test
    void whenAMethodIsNotPublicThenTheFailureSaysWhatToChangeOnTheMethod() {
        runner.withBean(PrivateMethod.class).run(context -> {
            FailureAnalysis analysis = analyze(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .contains("PrivateMethod.run(): the method is private; it must be public");
            assertThat(analysis.getAction())
                    .contains("Make the method public, non-static and non-final")
                    .doesNotContain("attribute");
        });
    }

    @Test
    void whenSeveralMethodsAreBadThenOneStartupFailureListsEveryOne() {
        runner.withBean(TwoBadMethods.class)
                .withBean(NegativeLease.class)
                .withBean(PrivateMethod.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .startsWith("4 @DistributedLock methods would not lock as written")
                            .contains("TwoBadMethods.first(): leaseTime '-2s' is negative")
                            .contains("TwoBadMethods.second(): waitTime 'soon' is not a duration")
                            .contains("NegativeLease.run(): leaseTime '-5s' is negative")
                            .contains("PrivateMethod.run(): the method is private");
                    assertThat(analysis.getAction())
                            .contains("Fix the @DistributedLock attribute")
                            .contains("Make the method public");
                });
    }

    @Test
    void whenTemplateOptionsHaveANegativeLeaseOtherThanMinusOneThenTheyAreRejected() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockOptions.DEFAULTS.withLeaseTime(Duration.ofSeconds(-5)))
                .withMessageContaining("'leaseTime' must be positive, or Duration.ofMillis(-1)");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockOptions.DEFAULTS.withLeaseTime(Duration.ZERO))
                .withMessageContaining("'leaseTime'");
        assertThat(LockOptions.DEFAULTS.withLeaseTime(Duration.ofMillis(-1)).leaseTime())
                .isEqualTo(Duration.ofMillis(-1));
    }

    private static FailureAnalysis analyze(Throwable failure) {
        FailureAnalysis analysis = new DistlockFailureAnalyzer().analyze(failure);
        assertThat(analysis).as("failure analysis of %s", failure).isNotNull();
        return analysis;
    }
}
