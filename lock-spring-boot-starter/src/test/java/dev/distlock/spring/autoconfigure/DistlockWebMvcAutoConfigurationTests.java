package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.web.LockExceptionHandler;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/** When the problem-detail handler (423, 503) is configured. */
class DistlockWebMvcAutoConfigurationTests {

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockWebMvcAutoConfiguration.class));

    @Test
    void whenServletWebApplicationThenHandlerIsConfigured() {
        web.run(context -> assertThat(context).hasSingleBean(LockExceptionHandler.class));
    }

    @Test
    void whenReactiveWebApplicationThenHandlerIsConfiguredToo() {
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistlockWebMvcAutoConfiguration.class))
                .run(context -> assertThat(context).hasSingleBean(LockExceptionHandler.class));
    }

    @Test
    void whenNotAWebApplicationThenNoHandler() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistlockWebMvcAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(LockExceptionHandler.class));
    }

    @Test
    void whenDisabledThenNoHandler() {
        web.withPropertyValues("distlock.web.problem-details.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LockExceptionHandler.class));
    }

    @Test
    void whenDistlockIsDisabledThenNoHandler() {
        web.withPropertyValues("distlock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LockExceptionHandler.class));
    }

    @Test
    void whenUserDefinesHandlerThenAutoConfiguredOneBacksOff() {
        LockExceptionHandler mine = new LockExceptionHandler() {};
        web.withBean("myHandler", LockExceptionHandler.class, () -> mine).run(context -> assertThat(context)
                .hasSingleBean(LockExceptionHandler.class)
                .getBean(LockExceptionHandler.class)
                .isSameAs(mine));
    }
}
