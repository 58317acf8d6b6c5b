package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.internal.aspect.DistributedLockAdvisor;
import dev.distlock.spring.internal.aspect.ReactiveLockSupport;
import dev.distlock.spring.internal.config.FirstUseSupplier;
import dev.distlock.spring.internal.hold.LockExecutor;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers the {@link dev.distlock.spring.DistributedLock} advisor as infrastructure, like
 * Spring's transaction advisor, ordered by {@code distlock.aspect.order} (default: outside
 * {@code @Transactional}).
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnProperty(prefix = "distlock", name = "enabled", havingValue = "true", matchIfMissing = true)
@Import(DistlockAspectAutoConfiguration.AutoProxyRegistrar.class)
public final class DistlockAspectAutoConfiguration {

    private static final Logger logger = LoggerFactory.getLogger(DistlockAspectAutoConfiguration.class);

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static DistributedLockAdvisor distributedLockAdvisor(
            BeanFactory beanFactory,
            Environment environment,
            ObjectProvider<LockExecutor> executor,
            ObjectProvider<ReactiveLockSupport> reactive) {
        // Bound from the environment rather than injected: advisors are created before ordinary
        // beans, and must not pull the properties bean or the lock client in early. The defaults
        // live in DistlockProperties only.
        DistlockProperties properties = Binder.get(environment).bindOrCreate("distlock", DistlockProperties.class);
        // Checked here too: the binder does not run the properties' own checks, and the annotations
        // are parsed before the properties bean exists.
        properties.checkLocks();
        // Resolved on first use, like the client: Boot's task executor if the application has one.
        Supplier<Executor> methodExecutor =
                FirstUseSupplier.of(() -> beanFactory.containsBean("applicationTaskExecutor")
                        ? beanFactory.getBean("applicationTaskExecutor", Executor.class)
                        : ForkJoinPool.commonPool());
        return DistributedLockAdvisor.create(
                beanFactory,
                properties.getDefaults().getWaitTime(),
                properties.getDefaults().getLeaseTime(),
                properties.lockNameSettings(),
                !properties.getRedlock().getNodes().isEmpty(),
                properties.getAspect().getOrder(),
                executor,
                reactive,
                methodExecutor);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static BeanPostProcessor distributedLockValidator(ObjectProvider<DistributedLockAdvisor> advisor) {
        return DistributedLockAdvisor.validator(advisor);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static SmartInitializingSingleton distlockAdvisorOrderCheck(ListableBeanFactory beanFactory) {
        return () -> {
            DistributedLockAdvisor lockAdvisor =
                    beanFactory.getBeanProvider(DistributedLockAdvisor.class).getIfAvailable();
            if (lockAdvisor == null) {
                return;
            }
            beanFactory.getBeansOfType(Advisor.class, false, false).forEach((name, advisor) -> {
                if (advisor.getClass().getName().contains("TransactionAttributeSourceAdvisor")
                        && advisor instanceof Ordered ordered
                        && ordered.getOrder() < lockAdvisor.getOrder()) {
                    logger.warn(
                            "The @DistributedLock advisor (order {}) runs inside the @Transactional advisor '{}' "
                                    + "(order {}): locks are released before transactions commit. Lower distlock.aspect.order.",
                            lockAdvisor.getOrder(),
                            name,
                            ordered.getOrder());
                }
            });
        };
    }

    /** Reactor support for {@code Mono}/{@code Flux} methods. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "reactor.core.publisher.Mono")
    static class ReactorConfiguration {

        @Bean
        ReactiveLockSupport distlockReactiveLockSupport() {
            return new ReactiveLockSupport();
        }
    }

    /** Makes sure an infrastructure auto-proxy creator exists, with or without AspectJ. */
    static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
