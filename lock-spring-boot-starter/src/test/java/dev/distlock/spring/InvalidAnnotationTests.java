package dev.distlock.spring;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/** Every kind of bad annotation fails startup with a message naming the class, method and expression. */
class InvalidAnnotationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration.class,
                    DistlockAutoConfiguration.class, DistlockAspectAutoConfiguration.class));

    private void assertStartupFails(Class<?> beanClass, String... fragments) {
        runner.withBean(beanClass).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining(beanClass.getSimpleName());
            for (String fragment : fragments) {
                assertThat(context.getStartupFailure()).hasStackTraceContaining(fragment);
            }
        });
    }

    static class SyntaxError {
        @DistributedLock(key = "#id +")
        public void run(String id) {
        }
    }

    @Test
    void whenKeyHasSyntaxErrorThenStartupFails() {
        assertStartupFails(SyntaxError.class, "SyntaxError.run(String)", "'#id +'", "Invalid key expression");
    }

    static class UnknownVariable {
        @DistributedLock(key = "#orderId")
        public void run(String id) {
        }
    }

    @Test
    void whenKeyNamesUnknownParameterThenStartupFails() {
        assertStartupFails(UnknownVariable.class, "UnknownVariable.run(String)", "'#orderId'", "unknown variable #orderId");
    }

    static class UnknownBean {
        @DistributedLock(key = "@missingBean.id()")
        public void run(String id) {
        }
    }

    @Test
    void whenKeyNamesUnknownBeanThenStartupFails() {
        assertStartupFails(UnknownBean.class, "UnknownBean.run(String)", "no bean named 'missingBean'");
    }

    static class BadCondition {
        @DistributedLock(condition = "#id ==")
        public void run(String id) {
        }
    }

    @Test
    void whenConditionHasSyntaxErrorThenStartupFails() {
        assertStartupFails(BadCondition.class, "BadCondition.run(String)", "Invalid condition expression '#id =='");
    }

    static class BadPlaceholder {
        @DistributedLock(name = "${no.such.property}")
        public void run() {
        }
    }

    @Test
    void whenNamePlaceholderIsMissingThenStartupFails() {
        assertStartupFails(BadPlaceholder.class, "BadPlaceholder.run()", "no.such.property");
    }

    static class BadDuration {
        @DistributedLock(waitTime = "five seconds")
        public void run() {
        }
    }

    @Test
    void whenWaitTimeIsNotADurationThenStartupFails() {
        assertStartupFails(BadDuration.class, "BadDuration.run()", "waitTime 'five seconds' is not a duration");
    }

    static class ZeroLease {
        @DistributedLock(leaseTime = "0s")
        public void run() {
        }
    }

    @Test
    void whenLeaseIsZeroThenStartupFails() {
        assertStartupFails(ZeroLease.class, "ZeroLease.run()", "leaseTime must be positive");
    }

    static class MissingFallback {
        @DistributedLock(onFailure = OnFailure.FALLBACK, fallback = "nope")
        public String run(String id) {
            return id;
        }
    }

    @Test
    void whenFallbackMethodIsMissingThenStartupFails() {
        assertStartupFails(MissingFallback.class, "MissingFallback.run(String)", "fallback method nope(String) not found");
    }

    static class FallbackWithoutName {
        @DistributedLock(onFailure = OnFailure.FALLBACK)
        public String run(String id) {
            return id;
        }
    }

    @Test
    void whenFallbackPolicyHasNoMethodThenStartupFails() {
        assertStartupFails(FallbackWithoutName.class, "FallbackWithoutName.run(String)", "needs the fallback method name");
    }

    static class WrongFallbackType {
        @DistributedLock(onFailure = OnFailure.FALLBACK, fallback = "other")
        public String run(String id) {
            return id;
        }

        public Integer other(String id) {
            return 1;
        }
    }

    @Test
    void whenFallbackReturnTypeDiffersThenStartupFails() {
        assertStartupFails(WrongFallbackType.class, "WrongFallbackType.run(String)", "returns java.lang.Integer");
    }

    static class SkipPrimitive {
        @DistributedLock(onFailure = OnFailure.SKIP)
        public int run() {
            return 1;
        }
    }

    @Test
    void whenSkipPolicyReturnsPrimitiveThenStartupFails() {
        assertStartupFails(SkipPrimitive.class, "SkipPrimitive.run()", "onFailure=SKIP cannot return");
    }

    static class Valid {
        @DistributedLock(name = "ok", key = "#p0 + #id", condition = "#id != null", waitTime = "1s", leaseTime = "-1")
        public String run(String id) {
            return id;
        }
    }

    @Test
    void whenAnnotationIsValidThenStartupSucceeds() {
        runner.withBean(Valid.class).run(context -> assertThat(context).hasNotFailed().hasSingleBean(Valid.class));
    }
}
