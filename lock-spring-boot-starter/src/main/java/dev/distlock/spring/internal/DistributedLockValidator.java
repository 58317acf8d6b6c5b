package dev.distlock.spring.internal;

import dev.distlock.spring.DistributedLock;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Checks every {@link DistributedLock} method of each bean when the bean is created, so that an
 * invalid annotation fails startup whether the bean gets a JDK or a CGLIB proxy.
 */
final class DistributedLockValidator implements BeanPostProcessor {

    private final ObjectProvider<DistributedLockAdvisor> advisor;

    /**
     * Creates the validator.
     * @param advisor the advisor whose registry parses the annotations
     */
    DistributedLockValidator(ObjectProvider<DistributedLockAdvisor> advisor) {
        this.advisor = advisor;
    }

    /** Before initialization, so the check runs before the auto-proxy creator matches the advisor. */
    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) throws BeansException {
        return postProcessAfterInitialization(bean, beanName);
    }

    /** After initialization too, for objects made by factory beans. */
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
        } catch (DistlockStartupException ex) {
            throw ex;
        } catch (IllegalStateException ex) {
            String message = String.valueOf(ex.getMessage());
            String action = message.contains("distlock.redlock.nodes")
                    ? "Set distlock.redlock.nodes to the independent Redis masters of red locks, or use another "
                            + "lock type."
                    : "Fix the @DistributedLock attribute named above on bean '" + beanName + "'; the Javadoc of "
                            + "@DistributedLock describes each attribute.";
            throw new DistlockStartupException(message, action, ex);
        }
        return bean;
    }
}
