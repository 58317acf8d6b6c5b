package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
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

/** A lock that cannot be acquired in a web request answers 423 Locked with a problem detail. */
class LockedWebRequestTests {

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
    void whenLockIsHeldElsewhereThenRequestGets423ProblemDetail() throws Exception {
        RedisLock held = other.getLock("web-order:7");
        assertThat(held.tryLock(0, 60_000, TimeUnit.MILLISECONDS)).isTrue();
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WebApp.class)
                .web(WebApplicationType.SERVLET)
                .properties("distlock.redis.url=" + redis.uri(), "server.port=0", "server.address=127.0.0.1")
                .run()) {
            String port = context.getBean(Environment.class).getProperty("local.server.port");
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders/7"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(423);
            assertThat(response.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(response.body()).contains("\"status\":423").contains("web-order:7");
            held.unlock();
            HttpResponse<String> free = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders/7"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(free.statusCode()).isEqualTo(200);
            assertThat(free.body()).isEqualTo("order 7");
        } finally {
            if (held.isLocked()) {
                held.forceUnlock();
            }
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class WebApp {

        @Bean
        OrderService orderService() {
            return new OrderService();
        }

        @Bean
        OrderController orderController(OrderService service) {
            return new OrderController(service);
        }
    }

    static class OrderService {

        @DistributedLock(name = "web-order", key = "#id", waitTime = "0")
        public String process(String id) {
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
        String order(@PathVariable("id") String id) {
            return service.process(id);
        }
    }
}
