package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real Boot web app whose Redis servers stop: the endpoint answers with the state unknown and an
 * error instead of a 500, and the health of red-lock nodes goes DOWN only below the quorum.
 */
class ActuatorWhileRedisFailsTests {

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static ConfigurableApplicationContext start(String... properties) {
        List<String> all = new ArrayList<>(List.of(
                "server.port=0",
                "spring.main.banner-mode=off",
                "management.endpoints.web.exposure.include=health,distlock",
                "management.endpoint.health.show-details=always",
                "management.health.redis.enabled=false",
                "distlock.redis.timeout=1s",
                "test.lock.name=named",
                "test.lock.region=eu-"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(TestApplication.class)
                .web(WebApplicationType.SERVLET)
                .properties(all.toArray(String[]::new))
                .run();
    }

    private HttpResponse<String> get(ConfigurableApplicationContext app, String path) throws Exception {
        int port = ((WebServerApplicationContext) app).getWebServer().getPort();
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String status(HttpResponse<String> response) {
        return JsonMapper.builder()
                .build()
                .readTree(response.body())
                .get("status")
                .asText();
    }

    @Test
    void whenRedisIsDownThenTheEndpointAnswersWithStateUnknownAndAnError() throws Exception {
        RedisServer redis = RedisServers.start();
        try (ConfigurableApplicationContext app = start("distlock.redis.url=" + redis.uri())) {
            assertThat(get(app, "/actuator/distlock/down").body()).contains("\"state\":\"unlocked\"");
            redis.stop();
            HttpResponse<String> state = get(app, "/actuator/distlock/down");
            assertThat(state.statusCode()).isEqualTo(200);
            assertThat(state.body()).contains("\"state\":\"unknown\"").contains("\"error\":");
            assertThat(get(app, "/actuator/distlock").statusCode()).isEqualTo(200);
        } finally {
            redis.stop();
        }
    }

    @Test
    void whenRedLockNodesStopThenHealthIsDownOnlyBelowTheQuorum() throws Exception {
        RedisServer main = RedisServers.start();
        List<RedisServer> nodes = RedisServers.start(3);
        try (ConfigurableApplicationContext app = start(
                "distlock.redis.url=" + main.uri(),
                "distlock.redlock.nodes="
                        + String.join(",", nodes.stream().map(RedisServer::uri).toList()))) {
            HttpResponse<String> allUp = get(app, "/actuator/health/distlock");
            assertThat(allUp.statusCode()).isEqualTo(200);
            assertThat(allUp.body())
                    .contains("\"node-0\"")
                    .contains("\"node-2\"")
                    .contains("\"quorum\"");

            nodes.get(2).stop();
            HttpResponse<String> oneDown = get(app, "/actuator/health/distlock");
            assertThat(oneDown.statusCode()).isEqualTo(200);
            assertThat(status(oneDown)).isEqualTo("UP");
            assertThat(oneDown.body()).contains("\"status\":\"UNREACHABLE\"").contains("\"reachable\":2");

            nodes.get(1).stop();
            HttpResponse<String> belowQuorum = get(app, "/actuator/health/distlock");
            assertThat(belowQuorum.statusCode()).isEqualTo(503);
            assertThat(status(belowQuorum)).isEqualTo("DOWN");
            assertThat(belowQuorum.body()).contains("\"reachable\":1");
        } finally {
            nodes.forEach(RedisServer::stop);
            main.stop();
        }
    }
}
