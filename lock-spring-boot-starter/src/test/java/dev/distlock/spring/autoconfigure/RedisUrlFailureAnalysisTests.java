package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** A bad {@code distlock.redis.url} ends in a short failure analysis naming the property, the value and the forms. */
class RedisUrlFailureAnalysisTests {

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class));

    @Test
    void whenUrlHasAnotherSchemeThenTheAnalysisNamesThePropertyTheValueAndTheAcceptedForms() {
        runner.withPropertyValues("distlock.redis.url=http://cache.example.com:6379")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .isEqualTo(
                                    "Invalid distlock.redis.url 'http://cache.example.com:6379': the scheme is 'http';"
                                            + " it must be redis:// or rediss://.");
                    assertThat(analysis.getAction())
                            .startsWith(
                                    "Set distlock.redis.url to redis://[[username:]password@]host[:port][/database]")
                            .contains("rediss://");
                });
    }

    @Test
    void whenUrlIsAHostAndPortWithoutSchemeThenTheAnalysisSaysSo() {
        runner.withPropertyValues("distlock.redis.url=localhost:6411").run(context -> {
            FailureAnalysis analysis = analyze(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .startsWith("Invalid distlock.redis.url 'localhost:6411': it has no scheme");
            assertThat(analysis.getAction()).contains("redis://localhost:6379");
        });
    }

    @Test
    void whenABadUrlHasAPasswordThenTheAnalysisDoesNotShowIt() {
        runner.withPropertyValues("distlock.redis.url=http://app:s3cret@cache:6379")
                .run(context -> {
                    FailureAnalysis analysis = analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .contains("'http://******@cache:6379'")
                            .doesNotContain("s3cret");
                });
    }

    @Test
    void whenTheDatabaseIsNotANumberThenTheAnalysisSaysSo() {
        runner.withPropertyValues("distlock.redis.url=redis://localhost:6379/orders")
                .run(context -> assertThat(analyze(context.getStartupFailure()).getDescription())
                        .contains("distlock.redis.url", "the path must be a database index"));
    }

    private static FailureAnalysis analyze(Throwable failure) {
        FailureAnalysis analysis = new DistlockFailureAnalyzer().analyze(failure);
        assertThat(analysis).as("failure analysis of %s", failure).isNotNull();
        return analysis;
    }
}
