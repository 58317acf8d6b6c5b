package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockHealthAutoConfiguration;
import dev.distlock.spring.internal.actuator.DistlockHealthIndicator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.web.server.LocalServerPort;

/** Metrics, the distlock endpoint and health over a real HTTP server. */
@DistlockRedisTest
@SpringBootTest(
        classes = TestApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=health,metrics,distlock",
            "management.endpoint.health.show-details=always",
            "test.lock.name=named",
            "test.lock.region=eu-",
            "distlock.redis.password="
        })
class ActuatorTests {

    @LocalServerPort
    int port;

    @Autowired
    LockedService service;

    @Autowired
    LockClient client;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> delete(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .DELETE()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldPublishMetricsTaggedByTemplateName() throws Exception {
        service.byParameterName("m-1");
        service.byParameterName("m-2");
        HttpResponse<String> acquire = get("/actuator/metrics/distlock.acquire");
        assertThat(acquire.statusCode()).isEqualTo(200);
        assertThat(acquire.body()).contains("\"orders\"").contains("acquired").doesNotContain("m-1");
        assertThat(get("/actuator/metrics/distlock.acquire?tag=lock.name:orders&tag=outcome:acquired")
                        .body())
                .contains("\"COUNT\"");
        assertThat(get("/actuator/metrics/distlock.held").statusCode()).isEqualTo(200);
        assertThat(get("/actuator/metrics/distlock.active").statusCode()).isEqualTo(200);
        assertThat(get("/actuator/metrics/distlock.waiting").statusCode()).isEqualTo(200);
        assertThat(get("/actuator/metrics/distlock.lease.lost?tag=lock.name:orders")
                        .body())
                .contains("\"COUNT\"");
    }

    @Test
    void shouldListHeldLocksAndReadLockState() throws Exception {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> result = service.future("ep", work);
        try {
            // The caller gets its future at once; the lock is taken without blocking it.
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(30))
                    // A loaded machine can make one read time out; the next one decides.
                    .ignoreExceptionsInstanceOf(dev.distlock.core.LockException.class)
                    .until(() -> client.getLock("future:ep").isLocked());
            HttpResponse<String> list = get("/actuator/distlock");
            assertThat(list.statusCode()).isEqualTo(200);
            assertThat(list.body())
                    .contains("\"name\":\"future:ep\"")
                    .contains("\"annotationName\":\"future\"")
                    .contains("remainingTtlMillis")
                    .contains("LockedService.future()");
            HttpResponse<String> one = get("/actuator/distlock/future:ep");
            assertThat(one.body())
                    .contains("\"locked\":true")
                    .contains("\"queueLength\":0")
                    .contains("\"holders\":{\"" + client.getId() + ":");
            // Read-only by default: neither the old POST nor the DELETE operation reaches force-unlock.
            assertThat(post("/actuator/distlock/future:ep").statusCode()).isBetween(400, 499);
            assertThat(delete("/actuator/distlock/future:ep").statusCode()).isBetween(400, 499);
            assertThat(client.getLock("future:ep").isLocked()).isTrue();
        } finally {
            work.complete("x");
            result.get();
        }
        assertThat(get("/actuator/distlock/future:ep").body()).contains("\"locked\":false");
    }

    @Test
    void whenAFencedLockIsHeldThenTheListAndItsDetailPageBothCallItFenced() throws Exception {
        dev.distlock.core.FencedLock fenced = client.getFencedLock("ep-fenced");
        long owner = dev.distlock.core.RedisLock.newOwnerId();
        assertThat(fenced.tryLockAndGetToken(0, 60_000, java.util.concurrent.TimeUnit.MILLISECONDS, owner))
                .isPresent();
        try {
            assertThat(get("/actuator/distlock").body()).contains("\"name\":\"ep-fenced\"");
            assertThat(get("/actuator/distlock").body())
                    .containsPattern("\"name\":\"ep-fenced\"[^}]*\"type\":\"fenced\"");
            assertThat(get("/actuator/distlock/ep-fenced").body())
                    .contains("\"kind\":\"fenced\"")
                    .contains("\"type\":\"fenced\"");
        } finally {
            fenced.unlock(owner);
        }
    }

    @Test
    void whenTheEndpointIsReadOnlyThenADeleteAnswers405WithAProblemDetailNamingTheAccessProperty() throws Exception {
        HttpResponse<String> refused = delete("/actuator/distlock/ep-refused");
        assertThat(refused.statusCode()).isEqualTo(405);
        assertThat(refused.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(refused.headers().firstValue("Allow"))
                .hasValueSatisfying(allow -> assertThat(allow).contains("GET"));
        assertThat(refused.body())
                .contains("\"status\":405")
                .contains("management.endpoint.distlock.access=unrestricted")
                .contains("\"instance\":\"/actuator/distlock/ep-refused\"");
        // Other 405s of the application keep their usual answer.
        HttpResponse<String> health = delete("/actuator/health");
        assertThat(health.body()).doesNotContain("management.endpoint.distlock.access");
    }

    @Test
    void shouldReportHealthUpWithLatency() throws Exception {
        HttpResponse<String> health = get("/actuator/health/distlock");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body())
                .contains("\"status\":\"UP\"")
                .contains("latencyMillis")
                .contains("pubSubLatencyMillis")
                .doesNotContain("password");
    }

    @Test
    void shouldReportHealthDownWhenRedisIsUnreachable() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockHealthAutoConfiguration.class))
                .withPropertyValues(
                        "distlock.redis.url=redis://:secret@127.0.0.1:" + RedisServers.freePort(),
                        "distlock.redis.timeout=500ms")
                .run(context -> {
                    var health = context.getBean(DistlockHealthIndicator.class).health(true);
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(String.valueOf(health.getDetails())).doesNotContain("secret");
                });
    }
}
