package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServers;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.NameMapper;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The startup warning for a key prefix next to Redisson: a Distlock lock named {@code x} is the key
 * {@code <prefix>x}, a Redisson lock named {@code x} is {@code x} unless its {@code NameMapper} adds the
 * prefix, and the two would not exclude each other. Redisson is on the test class path; the
 * {@code RedissonClient} beans are real clients of a real server.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedissonKeyPrefixWarningTests {

    private static final String WARNING = "Distlock's key prefix";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + RedisServers.shared().uri());

    @Test
    void whenAPrefixIsSetAndRedissonIsOnTheClassPathThenStartupWarns(CapturedOutput output) {
        runner.withPropertyValues("distlock.key-prefix=inv:")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut())
                .containsOnlyOnce(WARNING)
                .contains("Distlock's key prefix 'inv:' (distlock.key-prefix) puts lock 'x' at Redis key 'inv:x'")
                .contains("Redisson is on the class path (no RedissonClient bean in the context to check)")
                .contains("do not exclude each other")
                .contains("give its Config a NameMapper that prepends 'inv:' (Config.setNameMapper), or set no key"
                        + " prefix");
    }

    @Test
    void whenAPrefixIsSetAndARedissonBeanDoesNotMapNamesThenTheWarningNamesIt(CapturedOutput output) {
        runner.withPropertyValues("distlock.key-prefix=inv:")
                .withBean(
                        "legacyRedisson",
                        RedissonClient.class,
                        () -> redisson(null),
                        bean -> bean.setDestroyMethodName("shutdown"))
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut())
                .containsOnlyOnce(WARNING)
                .contains("RedissonClient bean 'legacyRedisson' does not map names with that prefix");
    }

    @Test
    void whenARedissonBeanMapsAnotherPrefixThenStartupWarns(CapturedOutput output) {
        runner.withPropertyValues("distlock.key-prefix=inv:")
                .withBean(
                        "legacyRedisson",
                        RedissonClient.class,
                        () -> redisson("orders:"),
                        bean -> bean.setDestroyMethodName("shutdown"))
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut())
                .containsOnlyOnce(WARNING)
                .contains("RedissonClient bean 'legacyRedisson' does not map names with that prefix");
    }

    @Test
    void whenEveryRedissonBeanMapsNamesWithThePrefixThenNothingIsReported(CapturedOutput output) {
        runner.withPropertyValues("distlock.key-prefix=inv:")
                .withBean(
                        "legacyRedisson",
                        RedissonClient.class,
                        () -> redisson("inv:"),
                        bean -> bean.setDestroyMethodName("shutdown"))
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut()).doesNotContain(WARNING);
    }

    @Test
    void whenNoPrefixIsSetThenNothingIsReportedEvenWithARedissonBean(CapturedOutput output) {
        runner.withBean(
                        "legacyRedisson",
                        RedissonClient.class,
                        () -> redisson(null),
                        bean -> bean.setDestroyMethodName("shutdown"))
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut()).doesNotContain(WARNING);
    }

    @Test
    void whenRedissonIsNotOnTheClassPathThenNothingIsReported(CapturedOutput output) {
        runner.withPropertyValues("distlock.key-prefix=inv:")
                .withClassLoader(new FilteredClassLoader("org.redisson"))
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut()).doesNotContain(WARNING);
    }

    @Test
    void whenACustomizerSetsThePrefixThenStartupWarnsAndNamesTheClient(CapturedOutput output) {
        runner.withBean(DistlockClientCustomizer.class, () -> builder -> builder.keyPrefix("app:"))
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut())
                .containsOnlyOnce(WARNING)
                .contains("Distlock's key prefix 'app:' (LockClient bean 'distlockClient')");
    }

    @Test
    void whenACustomizerClearsThePropertysPrefixThenNothingIsReported(CapturedOutput output) {
        runner.withPropertyValues("distlock.key-prefix=inv:")
                .withBean(DistlockClientCustomizer.class, () -> builder -> builder.keyPrefix(""))
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut()).doesNotContain(WARNING);
    }

    /** A real Redisson client whose names get {@code prefix}, or are used as given when it is null. */
    static RedissonClient redisson(@Nullable String prefix) {
        Config config = new Config();
        config.useSingleServer()
                .setAddress(RedisServers.shared().uri())
                .setConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionMinimumIdleSize(1);
        if (prefix != null) {
            config.setNameMapper(prefixMapper(prefix));
        }
        return Redisson.create(config);
    }

    /** Redisson's counterpart of {@code distlock.key-prefix}, as the migration guide shows it. */
    static NameMapper prefixMapper(String prefix) {
        return new NameMapper() {
            @Override
            public String map(String name) {
                return prefix + name;
            }

            @Override
            public String unmap(String name) {
                return name.startsWith(prefix) ? name.substring(prefix.length()) : name;
            }
        };
    }
}
