package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;

/** Startup failures are explained the way Boot explains its own: what failed and what to set. */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureAnalysisTests {

    @Test
    void whenRedisIsUnreachableWithFailFastThenAnalysisSaysWhatToSet(CapturedOutput output) {
        assertThatException().isThrownBy(() -> new SpringApplicationBuilder(PlainApp.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "distlock.redis.url=redis://127.0.0.1:1",
                        "distlock.fail-fast=true",
                        "distlock.redis.timeout=2s")
                .run()
                .close());
        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("Redis is unreachable")
                .contains("distlock.redis.url")
                .contains("distlock.fail-fast=false");
    }

    @Test
    void whenAnnotationIsInvalidThenAnalysisNamesTheMethodAndWhatToSet(CapturedOutput output) {
        assertThatException().isThrownBy(() -> new SpringApplicationBuilder(RedApp.class)
                .web(WebApplicationType.NONE)
                .properties("distlock.redis.url=redis://127.0.0.1:1")
                .run()
                .close());
        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("RedService.transfer()")
                .contains("type = RED")
                .contains("Action:")
                .contains("@DistributedLock");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PlainApp {}

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class RedApp {

        @Bean
        RedService redService() {
            return new RedService();
        }
    }

    static class RedService {

        @DistributedLock(name = "transfer", type = LockType.RED)
        public void transfer() {}
    }
}
