package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The distlock.watchdog.* group: seconds by default, at least one second, the old name still bound. */
class WatchdogPropertiesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=redis://127.0.0.1:1");

    @Test
    void whenWatchdogTimeoutIsAPlainNumberThenItIsSeconds() {
        runner.withPropertyValues("distlock.watchdog.timeout=12").run(context -> assertThat(
                        context.getBean(LockClient.class).getOptions().watchdogTimeout())
                .hasSeconds(12));
    }

    @Test
    void whenDeprecatedWatchdogTimeoutIsSetThenItIsStillUsed() {
        runner.withPropertyValues("distlock.watchdog-timeout=7s").run(context -> assertThat(
                        context.getBean(LockClient.class).getOptions().watchdogTimeout())
                .hasSeconds(7));
    }

    @Test
    void whenBothNamesAreSetThenTheNewOneWins() {
        runner.withPropertyValues("distlock.watchdog-timeout=7s", "distlock.watchdog.timeout=9s")
                .run(context -> assertThat(
                                context.getBean(LockClient.class).getOptions().watchdogTimeout())
                        .hasSeconds(9));
    }

    @Test
    void whenWatchdogTimeoutIsUnderOneSecondThenStartupFailsNamingTheProperty() {
        runner.withPropertyValues("distlock.watchdog.timeout=900ms").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("distlock.watchdog.timeout")
                    .hasStackTraceContaining("must be at least 1s");
        });
    }

    @Test
    void whenDeprecatedWatchdogTimeoutIsUnderOneSecondThenStartupFails() {
        runner.withPropertyValues("distlock.watchdog-timeout=500ms").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("distlock.watchdog-timeout")
                    .hasStackTraceContaining("must be at least 1s");
        });
    }
}
