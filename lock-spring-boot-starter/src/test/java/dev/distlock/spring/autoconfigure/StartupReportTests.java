package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * What the starter says at startup: one INFO line naming the Redis it connects to, its topology and
 * where that came from (password masked), and a warning for each unknown {@code distlock.*} key naming
 * the closest known property.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupReportTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataRedisAutoConfiguration.class, SslAutoConfiguration.class, DistlockAutoConfiguration.class));

    @Test
    void whenDistlockUrlIsSetThenTheLineNamesItAndMasksThePassword(CapturedOutput output) {
        runner.withPropertyValues("distlock.redis.url=redis://app:s3cret@cache:6390/2")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut())
                .containsOnlyOnce("Distlock connects to")
                .contains("Distlock connects to redis://cache:6390/2 (standalone, user 'app', password ****),"
                        + " from distlock.redis.url")
                .doesNotContain("s3cret");
    }

    @Test
    void whenNothingIsSetThenTheLineSaysItIsBootsDefault(CapturedOutput output) {
        runner.run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut())
                .contains("Distlock connects to redis://localhost:6379 (standalone), from spring.data.redis.*"
                        + " (Spring Boot's DataRedisConnectionDetails)");
    }

    @Test
    void whenNothingIsSetWithoutSpringDataRedisThenTheLineSaysItIsTheDefault(CapturedOutput output) {
        runner.withClassLoader(
                        new org.springframework.boot.test.context.FilteredClassLoader("org.springframework.data.redis"))
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut())
                .contains("Distlock connects to redis://localhost:6379 (standalone), from the default");
    }

    @Test
    void whenSentinelIsSetThenTheLineNamesTheMasterAndMasksTheSentinelPassword(CapturedOutput output) {
        runner.withPropertyValues(
                        "distlock.redis.sentinel.master=mymaster",
                        "distlock.redis.sentinel.nodes=s1:26379",
                        "distlock.redis.sentinel.password=sentinel-secret",
                        "distlock.redis.ssl.enabled=true")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut())
                .contains("Distlock connects to master 'mymaster' via rediss://:****@s1:26379 (Sentinel, TLS),"
                        + " from distlock.redis.sentinel.*")
                .doesNotContain("sentinel-secret");
    }

    @Test
    void whenAConnectionDetailsBeanIsDefinedThenTheLineNamesIt(CapturedOutput output) {
        runner.withBean(DistlockConnectionDetails.class, () -> new DistlockConnectionDetails() {})
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut()).contains("(standalone), from the DistlockConnectionDetails bean");
    }

    @Test
    void whenADistlockKeyIsMistypedThenAWarningNamesTheClosestProperty(CapturedOutput output) {
        runner.withPropertyValues("distlock.redis.uri=redis://cache:6390", "distlock.key-prefx=orders:")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut())
                .contains("Unknown property 'distlock.redis.uri'")
                .contains("did you mean 'distlock.redis.url'?")
                .contains("Unknown property 'distlock.key-prefx'")
                .contains("did you mean 'distlock.key-prefix'?");
    }

    @Test
    void whenEveryKeyIsKnownThenNothingIsReported(CapturedOutput output) {
        runner.withPropertyValues(
                        "distlock.redis.url=redis://cache:6390",
                        "distlock.redis.ssl=false",
                        "distlock.redis.ssl.bundle=",
                        "distlock.redlock.nodes[0]=redis://a:1",
                        "distlock.redlock.nodes[1]=redis://b:1",
                        "distlock.redlock.nodes[2]=redis://c:1",
                        "distlock.watchdog.max-hold=1h",
                        "distlock.events.enabled=false",
                        "distlock.KeyPrefix=relaxed:")
                .run(context -> assertThat(context).hasNotFailed());
        // A -D option of the build (distlock.test.forks) reaches the test JVM's system properties; it is not
        // one of this context's keys.
        assertThat(output.getOut()
                        .lines()
                        .filter(line -> line.contains("Unknown property")
                                && !line.contains("from property source \"systemProperties\"")))
                .isEmpty();
    }
}
