package dev.distlock.test;

import dev.distlock.test.internal.TestRedisContextCustomizerFactory;
import dev.distlock.test.internal.TestRedisExtension;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.test.context.ContextCustomizerFactories;

/**
 * Runs a test class against a real, throw-away Redis server, {@link TestRedis#shared()}: one
 * {@code redis-server} process per test JVM on a free port of 127.0.0.1 (or on a port of the
 * {@link #port()} range), without persistence,
 * stopped when the JVM exits. It is the binary named by the {@code DISTLOCK_REDIS_SERVER}
 * environment variable (or the {@code distlock.test.redis-server} system property), else
 * {@code redis-server} on {@code PATH}, else the Redis 6.2 binary inside the embedded-redis jar
 * ({@code embedded} as the variable's value forces that one).
 *
 * <p>In a Spring test ({@code @SpringBootTest}, or any test with a Spring context), the context
 * gets a primary {@link dev.distlock.spring.autoconfigure.DistlockConnectionDetails} bean for the
 * server, the way {@code @ServiceConnection} wires a container: Distlock's lock client connects to
 * it whatever {@code distlock.redis.*} or {@code spring.data.redis.*} say. With Spring Boot's Redis
 * support on the class path, a {@code DataRedisConnectionDetails} bean points the application's own
 * Redis connection ({@code RedisTemplate}, ...) at the same server, unless {@link #dataRedis()} is
 * {@code false}. Contexts are cached across test classes as usual.
 *
 * <p>Test constructors, lifecycle methods and test methods may declare a {@link TestRedis}
 * parameter. Without a Spring context the annotation still starts the server and resolves that
 * parameter. {@code @Nested} classes inherit it.
 *
 * <pre>{@code
 * import dev.distlock.test.DistlockTestRedis;
 * import dev.distlock.test.TestRedis;
 * import org.junit.jupiter.api.Test;
 * import org.springframework.boot.test.context.SpringBootTest;
 *
 * @SpringBootTest
 * @DistlockTestRedis
 * class ReportJobTests {
 *
 *     @Test
 *     void runsOnce(TestRedis redis) {
 *         // ... call the locked code; redis.command("EXISTS", "report") shows the lock
 *     }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ContextCustomizerFactories(TestRedisContextCustomizerFactory.class)
@ExtendWith(TestRedisExtension.class)
public @interface DistlockTestRedis {

    /**
     * Whether Spring Boot's own Redis connection (spring-boot-data-redis: {@code RedisTemplate},
     * repositories, caches) also uses the server, through a primary {@code DataRedisConnectionDetails}
     * bean. Ignored without spring-boot-data-redis on the class path.
     * @return whether to wire Spring Boot's Redis too
     */
    boolean dataRedis() default true;

    /**
     * Whether to empty the server ({@code FLUSHALL}) before each test method, so that no test sees
     * another's keys. Off by default: the server is shared by every test of the JVM, including test
     * classes that run in parallel.
     * @return whether to flush before each test
     */
    boolean flushBeforeEach() default false;

    /**
     * The port the server listens on, or an inclusive range of ports it may take, for machines
     * whose rules allow tests to listen on some ports only: {@code "6390"} or {@code "6390-6399"}.
     * Empty (the default) for any free port. Test classes that ask for the same port or range, or
     * for a range that holds the port of a server already running, share one server; a server
     * listens on the first free port of the range it finds. A value that is neither a port nor a
     * range, or a range whose start is above its end, fails the test class saying so.
     * @return the port or range, or empty for any free port
     */
    String port() default "";
}
