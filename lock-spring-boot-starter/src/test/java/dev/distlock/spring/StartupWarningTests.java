package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/** Startup warnings about advisor ordering that would weaken the lock. */
@ExtendWith(OutputCaptureExtension.class)
class StartupWarningTests {

    private static final String INSIDE_WARNING = "runs inside the @Transactional advisor";

    private static final String ASYNC_WARNING = "also has @Async";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockAspectAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + RedisServers.shared().uri());

    @Test
    void whenLockAdvisorIsOrderedInsideTransactionsThenStartupWarns(CapturedOutput output) {
        runner.withUserConfiguration(EarlyTransactions.class)
                .withPropertyValues("distlock.aspect.order=100")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).contains(INSIDE_WARNING).contains("(order 100)");
                });
    }

    @Test
    void whenLockAdvisorHasTheDefaultOrderThenNoOrderingWarning(CapturedOutput output) {
        runner.withUserConfiguration(DefaultTransactions.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output).doesNotContain(INSIDE_WARNING);
        });
    }

    @Test
    void whenLockedMethodIsAlsoAsyncThenStartupWarns(CapturedOutput output) {
        runner.withBean(AsyncLocked.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output).contains(ASYNC_WARNING).contains("report");
        });
    }

    @Test
    void whenLockedMethodIsNotAsyncThenNoAsyncWarning(CapturedOutput output) {
        runner.withBean(LockedService.class)
                .withBean("keyBean", LockedService.KeyBean.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).doesNotContain(ASYNC_WARNING);
                });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = 0)
    static class EarlyTransactions {}

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class DefaultTransactions {}

    static class AsyncLocked {

        @Async
        @DistributedLock(name = "report")
        public void report() {}
    }
}
