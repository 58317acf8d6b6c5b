package dev.distlock.samples.redis;

import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * Starts an {@link EmbeddedRedis} and points {@code distlock.redis.url} at it when no Redis is
 * configured: none of {@code distlock.redis.url}, {@code distlock.redis.sentinel.master},
 * {@code distlock.redis.cluster.nodes}, {@code spring.data.redis.url} or {@code spring.data.redis.host}
 * is set, and {@code samples.embedded-redis.enabled} is not {@code false}. The server is stopped when
 * the context closes, after every bean that uses it.
 *
 * <p>The decision is taken when the context refreshes rather than when this initializer runs, so
 * that properties added by other initializers (a test's {@code @DynamicPropertySource}) are seen.
 */
public final class EmbeddedRedisInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    /** Name of the registered {@link EmbeddedRedis} singleton. */
    public static final String BEAN_NAME = "embeddedRedis";

    private static final List<String> REDIS_PROPERTIES = List.of("distlock.redis.url",
            "distlock.redis.sentinel.master", "distlock.redis.cluster.nodes", "distlock.redis.cluster.nodes[0]",
            "spring.data.redis.url", "spring.data.redis.host");

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        context.addBeanFactoryPostProcessor(new Starter(context.getEnvironment()));
    }

    static boolean isRedisConfigured(ConfigurableEnvironment environment) {
        return REDIS_PROPERTIES.stream().anyMatch(name -> StringUtils.hasText(environment.getProperty(name)));
    }

    /** Runs first in the refresh, before any bean (and so before the lock client) is created. */
    private static final class Starter implements BeanDefinitionRegistryPostProcessor {

        private final ConfigurableEnvironment environment;

        Starter(ConfigurableEnvironment environment) {
            this.environment = environment;
        }

        @Override
        public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
            // Spring AOT refreshes the context at build time only to record bean definitions: no
            // server must start then (the generated code would not know the singleton anyway).
            if (Boolean.getBoolean("spring.aot.processing") || isRedisConfigured(environment)
                    || !environment.getProperty("samples.embedded-redis.enabled", Boolean.class, true)
                    || !(registry instanceof DefaultListableBeanFactory beanFactory)
                    || beanFactory.containsSingleton(BEAN_NAME)) {
                return;
            }
            EmbeddedRedis redis = EmbeddedRedis.start();
            environment.getPropertySources().addFirst(new MapPropertySource("embeddedRedis",
                    Map.of("distlock.redis.url", redis.url())));
            beanFactory.registerSingleton(BEAN_NAME, redis);
            // Registered before any other bean, so destroyed after all of them (the lock client included).
            beanFactory.registerDisposableBean(BEAN_NAME, redis);
        }

        @Override
        public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        }
    }
}
