package dev.distlock.spring.internal.aspect;

import dev.distlock.spring.internal.config.LockNameSettings;
import dev.distlock.spring.internal.hold.LockExecutor;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Infrastructure advisor that applies {@link DistributedLockInterceptor} to
 * {@link dev.distlock.spring.DistributedLock} methods, the way Spring's own transaction advisor
 * works: no AspectJ needed. Matching parses and checks the annotation; a bad one is reported at
 * startup by the validator, with every other bad method of the application.
 */
public final class DistributedLockAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient LockMethodRegistry registry;
    private final transient Advice advice;
    private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return registry.advises(method, targetClass);
        }
    };

    private DistributedLockAdvisor(LockMethodRegistry registry, Advice advice, int order) {
        this.registry = registry;
        this.advice = advice;
        setOrder(order);
    }

    /**
     * Creates the advisor with its interceptor, which resolves the executor and Reactor support on
     * first call, so that proxying creates neither the client nor its connection early.
     * @param beanFactory resolves placeholders, bean references in keys and checks annotations
     * @param defaultWait {@code distlock.defaults.wait-time}
     * @param defaultLease {@code distlock.defaults.lease-time}
     * @param redLockNodes whether {@code distlock.redlock.nodes} is set
     * @param order advisor order ({@code distlock.aspect.order})
     * @param executor acquires and releases locks
     * @param reactive Reactor support, present only with Reactor on the class path
     * @param methodExecutor runs the body of a {@code CompletionStage} method once its lock is granted
     * @return the advisor
     */
    public static DistributedLockAdvisor create(
            BeanFactory beanFactory,
            Duration defaultWait,
            Duration defaultLease,
            boolean redLockNodes,
            int order,
            ObjectProvider<LockExecutor> executor,
            ObjectProvider<ReactiveLockSupport> reactive,
            Supplier<Executor> methodExecutor) {
        return create(
                beanFactory,
                defaultWait,
                defaultLease,
                LockNameSettings.NONE,
                redLockNodes,
                order,
                executor,
                reactive,
                methodExecutor);
    }

    /**
     * Creates the advisor with its interceptor, as {@link #create(BeanFactory, Duration, Duration,
     * boolean, int, ObjectProvider, ObjectProvider, Supplier)} does, applying per-name settings.
     * @param beanFactory resolves placeholders, bean references in keys and checks annotations
     * @param defaultWait {@code distlock.defaults.wait-time}
     * @param defaultLease {@code distlock.defaults.lease-time}
     * @param lockNames {@code distlock.locks.<name>.*}, which win over the annotation's attributes
     * @param redLockNodes whether {@code distlock.redlock.nodes} is set
     * @param order advisor order ({@code distlock.aspect.order})
     * @param executor acquires and releases locks
     * @param reactive Reactor support, present only with Reactor on the class path
     * @param methodExecutor runs the body of a {@code CompletionStage} method once its lock is granted
     * @return the advisor
     */
    public static DistributedLockAdvisor create(
            BeanFactory beanFactory,
            Duration defaultWait,
            Duration defaultLease,
            LockNameSettings lockNames,
            boolean redLockNodes,
            int order,
            ObjectProvider<LockExecutor> executor,
            ObjectProvider<ReactiveLockSupport> reactive,
            Supplier<Executor> methodExecutor) {
        LockMethodRegistry registry =
                new LockMethodRegistry(beanFactory, defaultWait, defaultLease, redLockNodes, lockNames);
        DistributedLockInterceptor interceptor = new DistributedLockInterceptor(
                registry, new LockKeyResolver(beanFactory), executor, reactive, methodExecutor);
        return new DistributedLockAdvisor(registry, interceptor, order);
    }

    /**
     * Creates the post-processor that checks every {@code @DistributedLock} method of a bean when
     * the bean is created, so that a bad annotation fails at startup, naming the method.
     * @param advisor the advisor, looked up lazily
     * @return the post-processor
     */
    public static BeanPostProcessor validator(ObjectProvider<DistributedLockAdvisor> advisor) {
        return new DistributedLockValidator(advisor);
    }

    LockMethodRegistry registry() {
        return registry;
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return advice;
    }
}
