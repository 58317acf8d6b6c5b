package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Every kind of bad annotation fails startup with a message naming the class, method and expression. */
class InvalidAnnotationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration.class,
                    DistlockAutoConfiguration.class,
                    DistlockAspectAutoConfiguration.class));

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
        public void run(String id) {}
    }

    @Test
    void whenKeyHasSyntaxErrorThenStartupFails() {
        assertStartupFails(SyntaxError.class, "SyntaxError.run(String)", "'#id +'", "Invalid key expression");
    }

    static class UnknownVariable {
        @DistributedLock(key = "#orderId")
        public void run(String id) {}
    }

    @Test
    void whenKeyNamesUnknownParameterThenStartupFails() {
        assertStartupFails(
                UnknownVariable.class, "UnknownVariable.run(String)", "'#orderId'", "unknown variable #orderId");
    }

    static class UnknownBean {
        @DistributedLock(key = "@missingBean.id()")
        public void run(String id) {}
    }

    @Test
    void whenKeyNamesUnknownBeanThenStartupFails() {
        assertStartupFails(UnknownBean.class, "UnknownBean.run(String)", "no bean named 'missingBean'");
    }

    static class BadCondition {
        @DistributedLock(condition = "#id ==")
        public void run(String id) {}
    }

    @Test
    void whenConditionHasSyntaxErrorThenStartupFails() {
        assertStartupFails(BadCondition.class, "BadCondition.run(String)", "Invalid condition expression '#id =='");
    }

    static class BadPlaceholder {
        @DistributedLock(name = "${no.such.property}")
        public void run() {}
    }

    @Test
    void whenNamePlaceholderIsMissingThenStartupFails() {
        assertStartupFails(BadPlaceholder.class, "BadPlaceholder.run()", "no.such.property");
    }

    static class BadDuration {
        @DistributedLock(waitTime = "five seconds")
        public void run() {}
    }

    @Test
    void whenWaitTimeIsNotADurationThenStartupFails() {
        assertStartupFails(BadDuration.class, "BadDuration.run()", "waitTime 'five seconds' is not a duration");
    }

    static class ZeroLease {
        @DistributedLock(leaseTime = "0s")
        public void run() {}
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
        assertStartupFails(
                MissingFallback.class, "MissingFallback.run(String)", "fallback method nope(String) not found");
    }

    static class FallbackWithoutName {
        @DistributedLock(onFailure = OnFailure.FALLBACK)
        public String run(String id) {
            return id;
        }
    }

    @Test
    void whenFallbackPolicyHasNoMethodThenStartupFails() {
        assertStartupFails(
                FallbackWithoutName.class, "FallbackWithoutName.run(String)", "needs the fallback method name");
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

    interface TwoMethods {
        void first();

        void second(String id);
    }

    static class JdkProxiedSecondInvalid implements TwoMethods {
        @DistributedLock(name = "first")
        public void first() {}

        @DistributedLock(key = "#missing")
        public void second(String id) {}
    }

    @Test
    void whenJdkProxiedBeanHasASecondInvalidMethodThenStartupFails() {
        assertStartupFails(
                JdkProxiedSecondInvalid.class, "JdkProxiedSecondInvalid.second(String)", "unknown variable #missing");
    }

    static class ProtectedMethod {
        @DistributedLock(name = "p")
        protected void run() {}
    }

    @Test
    void whenAnnotatedMethodIsProtectedThenStartupFails() {
        assertStartupFails(ProtectedMethod.class, "ProtectedMethod.run()", "must be public");
    }

    static class PackagePrivateMethod {
        @DistributedLock(name = "p")
        void run() {}
    }

    @Test
    void whenAnnotatedMethodIsPackagePrivateThenStartupFails() {
        assertStartupFails(PackagePrivateMethod.class, "PackagePrivateMethod.run()", "must be public");
    }

    static class FinalMethod {
        @DistributedLock(name = "f")
        public final void run() {}
    }

    @Test
    void whenAnnotatedMethodIsFinalThenStartupFails() {
        assertStartupFails(FinalMethod.class, "FinalMethod.run()", "final");
    }

    interface Runner {
        void run();
    }

    static class FinalInterfaceMethod implements Runner {
        @DistributedLock(name = "f")
        public final void run() {}
    }

    @Test
    void whenFinalMethodImplementsAnInterfaceMethodThenStartupFailsToo() {
        assertStartupFails(FinalInterfaceMethod.class, "FinalInterfaceMethod.run()", "final");
    }

    static class StaticMethod {
        @DistributedLock(name = "s")
        public static void run() {}
    }

    @Test
    void whenAnnotatedMethodIsStaticThenStartupFails() {
        assertStartupFails(StaticMethod.class, "StaticMethod.run()", "static");
    }

    static class FencedFair {
        @DistributedLock(name = "f", type = LockType.FAIR, fenced = true)
        public void run() {}
    }

    @Test
    void whenFencedLockIsNotReentrantThenStartupFails() {
        assertStartupFails(FencedFair.class, "FencedFair.run()", "fenced = true", "type FAIR");
    }

    static class FencedMulti {
        @DistributedLock(name = "f", key = "#ids", fenced = true)
        public void run(java.util.List<String> ids) {}
    }

    @Test
    void whenFencedLockHasACollectionKeyThenStartupFails() {
        assertStartupFails(FencedMulti.class, "FencedMulti.run(List)", "fenced = true", "key '#ids'");
    }

    static class RedWithoutNodes {
        @DistributedLock(name = "r", type = LockType.RED)
        public void run() {}
    }

    @Test
    void whenRedLockHasNoNodesThenStartupFails() {
        assertStartupFails(RedWithoutNodes.class, "RedWithoutNodes.run()", "type = RED", "distlock.redlock.nodes");
    }

    @Test
    void whenRedLockHasNodesThenStartupSucceeds() {
        runner.withBean(RedWithoutNodes.class)
                .withPropertyValues("distlock.redlock.nodes=redis://127.0.0.1:1")
                .run(context -> assertThat(context).hasNotFailed());
    }

    static class ReturnsFuture {
        @DistributedLock(name = "f")
        public java.util.concurrent.Future<String> run() {
            return java.util.concurrent.CompletableFuture.completedFuture("x");
        }
    }

    @Test
    void whenMethodReturnsPlainFutureThenStartupFails() {
        assertStartupFails(ReturnsFuture.class, "ReturnsFuture.run()", "java.util.concurrent.Future");
    }

    static class ReturnsStream {
        @DistributedLock(name = "s")
        public java.util.stream.Stream<String> run() {
            return java.util.stream.Stream.of("x");
        }
    }

    @Test
    void whenMethodReturnsStreamThenStartupFails() {
        assertStartupFails(ReturnsStream.class, "ReturnsStream.run()", "java.util.stream.Stream");
    }

    /** A publisher that no ReactiveAdapter knows: the lock could follow it, but not hand it back. */
    interface CustomPublisher<T> extends org.reactivestreams.Publisher<T> {}

    static class ReturnsPublisher {
        @DistributedLock(name = "p")
        public CustomPublisher<String> run() {
            return reactor.core.publisher.Mono.just("x")::subscribe;
        }
    }

    @Test
    void whenMethodReturnsUnknownPublisherThenStartupFails() {
        assertStartupFails(
                ReturnsPublisher.class,
                "ReturnsPublisher.run()",
                CustomPublisher.class.getName(),
                "ReactiveAdapterRegistry");
    }

    static class ReturnsJdkFlowPublisher {
        @DistributedLock(name = "p")
        public java.util.concurrent.SubmissionPublisher<String> run() {
            return new java.util.concurrent.SubmissionPublisher<>();
        }
    }

    @Test
    void whenMethodReturnsASubtypeOfARegisteredReactiveTypeThenStartupFails() {
        assertStartupFails(
                ReturnsJdkFlowPublisher.class,
                "ReturnsJdkFlowPublisher.run()",
                "java.util.concurrent.SubmissionPublisher");
    }

    static class ReturnsRegisteredTypes {
        @DistributedLock(name = "p")
        public org.reactivestreams.Publisher<String> publisher() {
            return reactor.core.publisher.Mono.just("x");
        }

        @DistributedLock(name = "p")
        public java.util.concurrent.Flow.Publisher<String> flowPublisher() {
            return new java.util.concurrent.SubmissionPublisher<>();
        }
    }

    @Test
    void whenMethodReturnsAReactiveTypeOfTheAdapterRegistryThenStartupSucceeds() {
        runner.withBean(ReturnsRegisteredTypes.class)
                .run(context -> assertThat(context).hasNotFailed());
    }

    static class Valid {
        @DistributedLock(name = "ok", key = "#p0 + #id", condition = "#id != null", waitTime = "1s", leaseTime = "-1")
        public String run(String id) {
            return id;
        }
    }

    @Test
    void whenAnnotationIsValidThenStartupSucceeds() {
        runner.withBean(Valid.class)
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Valid.class));
    }
}
