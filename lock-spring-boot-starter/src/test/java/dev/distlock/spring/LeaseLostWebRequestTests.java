package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A request whose method ran but lost its lock's lease meanwhile ({@code distlock.lease-lost-policy=throw})
 * is answered with a problem detail of its own, never the 503 that says the request did not run.
 */
class LeaseLostWebRequestTests {

    static final RedisServer redis = RedisServers.shared();

    private LockClient other;

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
        other = LockClient.create(redis.uri());
    }

    @AfterEach
    void tearDown() {
        other.close();
    }

    @Test
    void whenTheLockIsForceReleasedWhileTheMethodRunsThenTheRequestGets409LeaseLostProblemDetail() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WebApp.class)
                .web(WebApplicationType.SERVLET)
                .properties(
                        "distlock.redis.url=" + redis.uri(),
                        "distlock.lease-lost-policy=throw",
                        "server.port=0",
                        "server.address=127.0.0.1",
                        "spring.main.banner-mode=off")
                .run()) {
            Gate gate = context.getBean(Gate.class);
            String port = context.getBean(Environment.class).getProperty("local.server.port");
            CompletableFuture<HttpResponse<String>> response = HttpClient.newHttpClient()
                    .sendAsync(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders/5"))
                                    .timeout(Duration.ofSeconds(30))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> other.getLock("web-lost:5").isLocked());
            // An operator (or an eviction) takes the lock away while the method still runs.
            other.getLock("web-lost:5").forceUnlock();
            gate.proceed.countDown();

            HttpResponse<String> answered = response.get(30, TimeUnit.SECONDS);
            assertThat(gate.completed).hasValue(1);
            assertThat(answered.statusCode()).isEqualTo(409);
            assertThat(answered.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(answered.body())
                    .contains("\"type\":\"urn:distlock:problem:lease-lost\"")
                    .contains("\"title\":\"Lock lease lost\"")
                    .contains("\"status\":409")
                    .contains("\"lock\":\"web-lost:5\"")
                    .contains("ran without the lock")
                    .doesNotContain("did not run");
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class WebApp {

        @Bean
        Gate gate() {
            return new Gate();
        }

        @Bean
        OrderService orderService(Gate gate) {
            return new OrderService(gate);
        }

        @Bean
        OrderController orderController(OrderService service) {
            return new OrderController(service);
        }
    }

    /** Lets the test decide when the locked method finishes, and count that it did. */
    static class Gate {

        final CountDownLatch proceed = new CountDownLatch(1);
        final AtomicInteger completed = new AtomicInteger();
    }

    static class OrderService {

        private final Gate gate;

        OrderService(Gate gate) {
            this.gate = gate;
        }

        @DistributedLock(name = "web-lost", key = "#id", waitTime = "0")
        public String process(String id) throws InterruptedException {
            assertThat(gate.proceed.await(20, TimeUnit.SECONDS)).isTrue();
            gate.completed.incrementAndGet();
            return "order " + id;
        }
    }

    @RestController
    static class OrderController {

        private final OrderService service;

        OrderController(OrderService service) {
            this.service = service;
        }

        @GetMapping("/orders/{id}")
        String order(@PathVariable("id") String id) throws InterruptedException {
            return service.process(id);
        }
    }
}
