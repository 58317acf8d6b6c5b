package dev.distlock.samples.redis;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Starts an {@link EmbeddedRedis} and points {@code distlock.redis.url} at it when no Redis is
 * configured: none of {@code distlock.redis.url}, {@code distlock.redis.sentinel.master} or
 * {@code distlock.redis.cluster.nodes} is set (nor {@code spring.data.redis.url} or
 * {@code spring.data.redis.host} when spring-data-redis is on the class path: the starter reads those
 * only through Spring Boot's own Redis connection details), and {@code samples.embedded-redis.enabled}
 * is not {@code false}. The server is stopped when
 * the context closes, after every bean that uses it.
 *
 * <p>The decision is taken when the context refreshes rather than when this initializer runs, so
 * that properties added by other initializers (a test's {@code @DynamicPropertySource}) are seen.
 */
public final class EmbeddedRedisInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    /** Name of the registered {@link EmbeddedRedis} singleton. */
    public static final String BEAN_NAME = "embeddedRedis";

    private static final List<String> DISTLOCK_REDIS_PROPERTIES = List.of(
            "distlock.redis.url",
            "distlock.redis.sentinel.master",
            "distlock.redis.cluster.nodes",
            "distlock.redis.cluster.nodes[0]");

    private static final List<String> SPRING_DATA_REDIS_PROPERTIES =
            List.of("spring.data.redis.url", "spring.data.redis.host");

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        context.addBeanFactoryPostProcessor(new Starter(context.getEnvironment()));
    }

    static boolean isRedisConfigured(ConfigurableEnvironment environment) {
        boolean springDataRedis = ClassUtils.isPresent(
                "org.springframework.data.redis.connection.RedisConnectionFactory",
                EmbeddedRedisInitializer.class.getClassLoader());
        return Stream.concat(
                        DISTLOCK_REDIS_PROPERTIES.stream(),
                        springDataRedis ? SPRING_DATA_REDIS_PROPERTIES.stream() : Stream.empty())
                .anyMatch(name -> StringUtils.hasText(environment.getProperty(name)));
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
            if (Boolean.getBoolean("spring.aot.processing")
                    || isRedisConfigured(environment)
                    || !environment.getProperty("samples.embedded-redis.enabled", Boolean.class, true)
                    || !(registry instanceof DefaultListableBeanFactory beanFactory)
                    || beanFactory.containsSingleton(BEAN_NAME)) {
                return;
            }
            EmbeddedRedis redis = EmbeddedRedis.start();
            environment
                    .getPropertySources()
                    .addFirst(new MapPropertySource("embeddedRedis", Map.of("distlock.redis.url", redis.url())));
            beanFactory.registerSingleton(BEAN_NAME, redis);
            // Registered before any other bean, so destroyed after all of them (the lock client included).
            beanFactory.registerDisposableBean(BEAN_NAME, redis);
        }

        @Override
        public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {}
    }
}
