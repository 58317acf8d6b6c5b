package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * {@code spring.data.redis.*} is honoured without spring-data-redis (which is what makes Spring Boot
 * adapt those properties), with and without spring-boot-data-redis, instead of connecting to
 * {@code localhost:6379} with nothing said.
 */
class SpringDataRedisSettingsTests {

    static Stream<FilteredClassLoader> withoutSpringDataRedis() {
        return Stream.of(
                new FilteredClassLoader("org.springframework.data.redis"),
                new FilteredClassLoader("org.springframework.data.redis", "org.springframework.boot.data.redis"));
    }

    private static ApplicationContextRunner runner(FilteredClassLoader classLoader) {
        return new ApplicationContextRunner()
                .withClassLoader(classLoader)
                .withConfiguration(AutoConfigurations.of(
                        DataRedisAutoConfiguration.class, SslAutoConfiguration.class, DistlockAutoConfiguration.class));
    }

    private static LockClientOptions options(ApplicationContext context) {
        return context.getBean(LockClient.class).getOptions();
    }

    @ParameterizedTest
    @MethodSource("withoutSpringDataRedis")
    void whenHostPortDatabaseAndCredentialsAreSetThenTheyAreUsed(FilteredClassLoader classLoader) {
        runner(classLoader)
                .withPropertyValues(
                        "spring.data.redis.host=boot",
                        "spring.data.redis.port=6391",
                        "spring.data.redis.database=2",
                        "spring.data.redis.username=u",
                        "spring.data.redis.password=p")
                .run(context -> {
                    assertThat(context).hasSingleBean(PropertiesDistlockConnectionDetails.class);
                    LockClientOptions options = options(context);
                    assertThat(options.uri()).isEqualTo("redis://boot:6391/2");
                    assertThat(options.username()).isEqualTo("u");
                    assertThat(options.password()).isEqualTo("p");
                    assertThat(options.ssl()).isFalse();
                });
    }

    @ParameterizedTest
    @MethodSource("withoutSpringDataRedis")
    void whenOnlyThePortIsSetThenTheHostIsLocalhost(FilteredClassLoader classLoader) {
        runner(classLoader)
                .withPropertyValues("spring.data.redis.port=6392")
                .run(context -> assertThat(options(context).uri()).isEqualTo("redis://localhost:6392"));
    }

    @ParameterizedTest
    @MethodSource("withoutSpringDataRedis")
    void whenTheUrlIsSetThenItOverridesHostPortCredentialsAndDatabaseAsInBoot(FilteredClassLoader classLoader) {
        runner(classLoader)
                .withPropertyValues(
                        "spring.data.redis.url=rediss://app:secret@boot:6380/4",
                        "spring.data.redis.host=ignored",
                        "spring.data.redis.password=ignored",
                        "spring.data.redis.database=9")
                .run(context -> {
                    LockClientOptions options = options(context);
                    assertThat(options.uri()).isEqualTo("rediss://boot:6380/4");
                    assertThat(options.username()).isEqualTo("app");
                    assertThat(options.password()).isEqualTo("secret");
                    assertThat(options.ssl()).isTrue();
                });
    }

    @ParameterizedTest
    @MethodSource("withoutSpringDataRedis")
    void whenSslIsEnabledThenTheClientUsesTls(FilteredClassLoader classLoader) {
        runner(classLoader)
                .withPropertyValues("spring.data.redis.host=boot", "spring.data.redis.ssl.enabled=true")
                .run(context -> assertThat(options(context).ssl()).isTrue());
    }

    @ParameterizedTest
    @MethodSource("withoutSpringDataRedis")
    void whenSentinelIsSetThenTheClientUsesIt(FilteredClassLoader classLoader) {
        runner(classLoader)
                .withPropertyValues(
                        "spring.data.redis.sentinel.master=mymaster",
                        "spring.data.redis.sentinel.nodes=s1:26379,s2:26380",
                        "spring.data.redis.sentinel.password=spw",
                        "spring.data.redis.password=pw",
                        "spring.data.redis.database=3")
                .run(context -> {
                    LockClientOptions options = options(context);
                    assertThat(options.sentinelMaster()).isEqualTo("mymaster");
                    assertThat(options.sentinelNodes())
                            .containsExactly("redis://:spw@s1:26379", "redis://:spw@s2:26380");
                    assertThat(options.password()).isEqualTo("pw");
                    assertThat(options.database()).isEqualTo(3);
                });
    }

    @ParameterizedTest
    @MethodSource("withoutSpringDataRedis")
    void whenClusterIsSetThenTheClientUsesIt(FilteredClassLoader classLoader) {
        runner(classLoader)
                .withPropertyValues("spring.data.redis.cluster.nodes=c1:7000,c2:7001", "spring.data.redis.password=p")
                .run(context -> {
                    assertThat(options(context).clusterNodes()).containsExactly("redis://c1:7000", "redis://c2:7001");
                    assertThat(options(context).password()).isEqualTo("p");
                });
    }

    @ParameterizedTest
    @MethodSource("withoutSpringDataRedis")
    void whenDistlockNamesAConnectionThenItWins(FilteredClassLoader classLoader) {
        runner(classLoader)
                .withPropertyValues("spring.data.redis.host=boot", "distlock.redis.url=redis://mine:6390/3")
                .run(context -> assertThat(options(context).uri()).isEqualTo("redis://mine:6390/3"));
    }

    @ParameterizedTest
    @MethodSource("withoutSpringDataRedis")
    void whenTheUrlIsBadThenTheErrorNamesTheSpringProperty(FilteredClassLoader classLoader) {
        runner(classLoader)
                .withPropertyValues("spring.data.redis.url=http://boot:6379")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .hasStackTraceContaining("Invalid spring.data.redis.url"));
    }
}
