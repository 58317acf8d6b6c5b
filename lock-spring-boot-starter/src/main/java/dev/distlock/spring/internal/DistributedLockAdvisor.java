package dev.distlock.spring.internal;

import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Infrastructure advisor that applies {@link DistributedLockInterceptor} to
 * {@link dev.distlock.spring.DistributedLock} methods, the way Spring's own transaction advisor
 * works: no AspectJ needed. Matching parses and checks the annotation, so a bad one fails the
 * creation of its bean.
 */
public final class DistributedLockAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient LockMethodRegistry registry;
    private final transient Advice advice;
    private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return registry.find(method, targetClass) != null;
        }
    };

    /**
     * Creates the advisor.
     * @param registry parses and caches lock methods
     * @param advice the interceptor
     * @param order advisor order ({@code distlock.aspect.order})
     */
    public DistributedLockAdvisor(LockMethodRegistry registry, Advice advice, int order) {
        this.registry = registry;
        this.advice = advice;
        setOrder(order);
    }

    /**
     * Returns the registry of parsed lock methods.
     * @return the registry
     */
    public LockMethodRegistry registry() {
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
