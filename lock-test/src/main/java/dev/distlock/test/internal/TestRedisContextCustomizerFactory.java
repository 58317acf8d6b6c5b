package dev.distlock.test.internal;

import dev.distlock.spring.autoconfigure.DistlockConnectionDetails;
import dev.distlock.test.DistlockTestRedis;
import dev.distlock.test.TestRedis;
import java.util.List;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Registers the connection details of the test Redis ({@link TestRedis#shared(String)} on the
 * annotation's port) in the context of a
 * {@link DistlockTestRedis} test, as {@code @ServiceConnection} does for a container.
 */
public final class TestRedisContextCustomizerFactory implements ContextCustomizerFactory {

    private static final boolean DATA_REDIS_PRESENT = ClassUtils.isPresent(
            "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails",
            TestRedisContextCustomizerFactory.class.getClassLoader());

    @Override
    public ContextCustomizer createContextCustomizer(
            Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        DistlockTestRedis annotation =
                TestContextAnnotationUtils.findMergedAnnotation(testClass, DistlockTestRedis.class);
        boolean dataRedis = annotation == null || annotation.dataRedis();
        TestRedis redis = TestRedisExtension.server(testClass);
        return new TestRedisConnection(redis.host(), redis.port(), dataRedis && DATA_REDIS_PRESENT);
    }

    /**
     * The address is part of the context cache key: should the server have been restarted on
     * another port, a cached context would point at the old one.
     */
    private record TestRedisConnection(String host, int port, boolean dataRedis) implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            if (!(context.getBeanFactory() instanceof BeanDefinitionRegistry registry)) {
                throw new IllegalStateException(
                        "@DistlockTestRedis needs a context whose bean factory accepts bean" + " definitions, not "
                                + context.getBeanFactory().getClass().getName());
            }
            // Primary, so that it wins over connection details the application or another test
            // annotation declares, and Distlock's own properties-backed details back off.
            RootBeanDefinition distlock = new RootBeanDefinition(
                    DistlockConnectionDetails.class, () -> new TestRedisDistlockConnectionDetails(host, port));
            distlock.setPrimary(true);
            registry.registerBeanDefinition("distlockTestRedisConnectionDetails", distlock);
            if (dataRedis) {
                DataRedisDetails.register(registry, host, port);
            }
        }
    }

    /** Connection details of the test Redis for Distlock. */
    private record TestRedisDistlockConnectionDetails(String host, int port) implements DistlockConnectionDetails {

        @Override
        public Standalone getStandalone() {
            return Standalone.of(host, port, 0);
        }
    }
}
