package dev.distlock.spring.internal;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotationUtils;

import dev.distlock.spring.DistributedLock;

/**
 * Checks every {@link DistributedLock} method of each bean when the bean is created, so that an
 * invalid annotation fails startup whether the bean gets a JDK or a CGLIB proxy.
 */
public final class DistributedLockValidator implements BeanPostProcessor {

    private final ObjectProvider<DistributedLockAdvisor> advisor;

    /**
     * Creates the validator.
     * @param advisor the advisor whose registry parses the annotations
     */
    public DistributedLockValidator(ObjectProvider<DistributedLockAdvisor> advisor) {
        this.advisor = advisor;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> type = AopUtils.getTargetClass(bean);
        if (!AnnotationUtils.isCandidateClass(type, DistributedLock.class)) {
            return bean;
        }
        DistributedLockAdvisor lockAdvisor = advisor.getIfAvailable();
        if (lockAdvisor == null) {
            return bean;
        }
        try {
            lockAdvisor.registry().validate(type);
        }
        catch (IllegalStateException ex) {
            throw new BeanCreationException(beanName, ex.getMessage(), ex);
        }
        return bean;
    }
}
