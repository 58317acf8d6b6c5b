package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpHeaders;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The read-only {@code distlock} endpoint of a WebFlux application: a {@code DELETE} (force-unlock)
 * answers 405 with a problem detail that names the access property, as in a Spring MVC application.
 */
@DistlockRedisTest
@SpringBootTest(
        classes = TestApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.main.web-application-type=reactive",
            "management.endpoints.web.exposure.include=health,distlock",
            "test.lock.name=named",
            "test.lock.region=eu-"
        })
class EndpointReadOnlyWebFluxTests {

    @LocalServerPort
    int port;

    private WebTestClient web;

    @BeforeEach
    void client() {
        web = WebTestClient.bindToServer().baseUrl("http://127.0.0.1:" + port).build();
    }

    @Test
    void whenTheEndpointIsReadOnlyThenADeleteAnswers405WithAProblemDetailNamingTheAccessProperty() {
        web.delete()
                .uri("/actuator/distlock/flux-refused")
                .exchange()
                .expectStatus()
                .isEqualTo(405)
                .expectHeader()
                .contentTypeCompatibleWith("application/problem+json")
                .expectHeader()
                .value(HttpHeaders.ALLOW, allow -> assertThat(allow).contains("GET"))
                .expectBody(String.class)
                .value(body -> assertThat(body)
                        .contains("\"status\":405")
                        .contains("management.endpoint.distlock.access=unrestricted")
                        .contains("\"instance\":\"/actuator/distlock/flux-refused\""));
    }

    @Test
    void whenTheNameIsAQueryParameterThenTheDeleteIsRefusedTheSameWay() {
        web.delete()
                .uri(uri -> uri.path("/actuator/distlock")
                        .queryParam("name", "flux-refused")
                        .build())
                .exchange()
                .expectStatus()
                .isEqualTo(405)
                .expectBody(String.class)
                .value(body -> assertThat(body).contains("management.endpoint.distlock.access=unrestricted"));
    }

    @Test
    void whenAnotherEndpointRefusesADeleteThenItsAnswerIsLeftAlone() {
        web.delete()
                .uri("/actuator/health")
                .exchange()
                .expectStatus()
                .isEqualTo(405)
                .expectBody(String.class)
                .value(body ->
                        assertThat(body == null ? "" : body).doesNotContain("management.endpoint.distlock.access"));
    }

    @Test
    void whenTheEndpointIsReadThenItStillAnswers() {
        web.get().uri("/actuator/distlock").exchange().expectStatus().isOk();
    }
}
