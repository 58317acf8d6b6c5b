package dev.distlock.spring;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.test.context.ContextCustomizerFactories;

/**
 * Runs a Spring test against the JVM-wide Redis of the fixture ({@link RedisServers#shared()}): the
 * test context gets {@code distlock.redis.url} pointing at it, and test constructors, lifecycle and
 * test methods may declare a {@link RedisServer} parameter to reach it. Put it next to
 * {@code @SpringBootTest}; {@code @Nested} classes inherit it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ContextCustomizerFactories(SharedRedisContextCustomizerFactory.class)
@ExtendWith(SharedRedisParameterResolver.class)
public @interface DistlockRedisTest {}
