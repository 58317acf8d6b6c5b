package dev.distlock.spring.internal.aspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.LockedService;
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockProperties;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The advisor binds {@code distlock.*} itself; its defaults must be those of {@link DistlockProperties}. */
class LockMethodDefaultsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockAspectAutoConfiguration.class));

    @Test
    void whenDefaultsAreNotSetThenLockMethodsUseThoseOfDistlockProperties() throws Exception {
        DistlockProperties.Defaults defaults = new DistlockProperties().getDefaults();
        runner.run(context -> {
            LockMethod lockMethod = find(context.getBean(DistributedLockAdvisor.class));
            assertThat(lockMethod.waitTime()).isEqualTo(defaults.getWaitTime());
            assertThat(lockMethod.leaseTime()).isEqualTo(defaults.getLeaseTime());
        });
    }

    @Test
    void whenDefaultsAreSetThenLockMethodsUseThem() {
        runner.withPropertyValues("distlock.defaults.wait-time=7s", "distlock.defaults.lease-time=45s")
                .run(context -> {
                    LockMethod lockMethod = find(context.getBean(DistributedLockAdvisor.class));
                    assertThat(lockMethod.waitTime()).hasSeconds(7);
                    assertThat(lockMethod.leaseTime()).hasSeconds(45);
                });
    }

    private static LockMethod find(DistributedLockAdvisor advisor) throws NoSuchMethodException {
        Method method = LockedService.class.getMethod("byPosition", String.class, int.class);
        LockMethod lockMethod = advisor.registry().find(method, LockedService.class);
        assertThat(lockMethod).isNotNull();
        return lockMethod;
    }
}
