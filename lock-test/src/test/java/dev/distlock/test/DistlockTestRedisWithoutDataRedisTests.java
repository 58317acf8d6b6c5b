package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.autoconfigure.DistlockConnectionDetails;
import dev.distlock.test.app.ReportApplication;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.SpringBootTest;

/** {@code dataRedis = false}: only Distlock uses the test Redis; Spring Boot's Redis keeps its configuration. */
@SpringBootTest(classes = ReportApplication.class, properties = "spring.data.redis.port=6390")
@DistlockTestRedis(dataRedis = false)
class DistlockTestRedisWithoutDataRedisTests {

    @Test
    void whenDataRedisIsLeftAloneThenOnlyDistlockUsesTheTestRedis(
            @Autowired DistlockConnectionDetails distlock,
            @Autowired DataRedisConnectionDetails data,
            TestRedis redis) {
        assertThat(distlock.getStandalone().getPort()).isEqualTo(redis.port());
        assertThat(data.getStandalone().getPort()).isEqualTo(6390);
        assertThat(new ReportApplication.ReportService().run(() -> "plain")).isEqualTo("plain");
    }
}
