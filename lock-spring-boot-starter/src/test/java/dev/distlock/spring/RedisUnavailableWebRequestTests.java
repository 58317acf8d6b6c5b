package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.internal.hold.HoldIndex;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
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
import reactor.core.publisher.Mono;

/**
 * Real MVC and WebFlux apps whose Redis stops: a locked request answers 503 with a problem detail
 * instead of a 500, beside the 423 of a lock held elsewhere, and so does a caller whose wait ends
 * because Redis stopped while it waited.
 */
@Tag("fault")
class RedisUnavailableWebRequestTests {

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    enum Stack {
        SERVLET,
        REACTIVE
    }

    @ParameterizedTest
    @EnumSource(Stack.class)
    void whenRedisIsStoppedThenALockedRequestAnswers503WithAProblemDetail(Stack stack) throws Exception {
        RedisServer redis = RedisServers.start();
        try (ConfigurableApplicationContext app = start(stack, redis);
                LockClient other = LockClient.create(redis.uri())) {
            assertThat(get(app, "/orders/1").statusCode()).isEqualTo(200);

            RedisLock held = other.getLock("web-order:2");
            assertThat(held.tryLock(0, 60_000, TimeUnit.MILLISECONDS)).isTrue();
            HttpResponse<String> locked = get(app, "/orders/2");
            assertThat(locked.statusCode()).isEqualTo(423);
            assertThat(locked.body()).contains("\"status\":423").contains("web-order:2");

            redis.stop();
            HttpResponse<String> unavailable = get(app, "/orders/3");
            assertThat(unavailable.statusCode()).isEqualTo(503);
            assertThat(unavailable.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(unavailable.body())
                    .contains("\"status\":503")
                    .contains("\"title\":\"Lock store unavailable\"")
                    .doesNotContain(String.valueOf(redis.port()));
        } finally {
            redis.stop();
        }
    }

    @ParameterizedTest
    @EnumSource(Stack.class)
    void whenRedisStopsWhileACallerWaitsThenItAnswers503WithinItsWaitAndTwoCommandTimeouts(Stack stack)
            throws Exception {
        RedisServer redis = RedisServers.start();
        try (ConfigurableApplicationContext app = start(stack, redis);
                LockClient other = LockClient.create(redis.uri())) {
            RedisLock held = other.getLock("web-wait:4");
            assertThat(held.tryLock(0, 60_000, TimeUnit.MILLISECONDS)).isTrue();
            HoldIndex index = app.getBean(HoldIndex.class);
            long sent = System.nanoTime();
            CompletableFuture<HttpResponse<String>> waiting = getAsync(app, "/waits/4");
            await().atMost(Duration.ofSeconds(20)).until(() -> !index.waiters().isEmpty());

            redis.stop();
            HttpResponse<String> answered = waiting.get(60, TimeUnit.SECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - sent);

            // The wait ended because the store could not be reached, not because the lock stayed taken.
            assertThat(answered.statusCode()).as(answered.body()).isEqualTo(503);
            assertThat(answered.body())
                    .contains("\"title\":\"Lock store unavailable\"")
                    .doesNotContain(String.valueOf(redis.port()));
            // The documented bound: waitTime (5 s) plus two command timeouts (1 s each), plus slack
            // for a loaded machine.
            assertThat(took).isLessThan(Duration.ofSeconds(5 + 2 + 3));
        } finally {
            redis.stop();
        }
    }

    private static ConfigurableApplicationContext start(Stack stack, RedisServer redis) {
        return new SpringApplicationBuilder(stack == Stack.SERVLET ? MvcApp.class : FluxApp.class)
                .web(stack == Stack.SERVLET ? WebApplicationType.SERVLET : WebApplicationType.REACTIVE)
                .properties(
                        "distlock.redis.url=" + redis.uri(),
                        "distlock.redis.timeout=1s",
                        "server.port=0",
                        "server.address=127.0.0.1",
                        "spring.main.banner-mode=off",
                        "management.health.redis.enabled=false")
                .run();
    }

    private HttpResponse<String> get(ConfigurableApplicationContext app, String path) throws Exception {
        String port = app.getBean(Environment.class).getProperty("local.server.port");
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(60))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<HttpResponse<String>> getAsync(ConfigurableApplicationContext app, String path) {
        String port = app.getBean(Environment.class).getProperty("local.server.port");
        return http.sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(60))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class MvcApp {

        @Bean
        OrderService orderService() {
            return new OrderService();
        }

        @Bean
        OrderController orderController(OrderService service) {
            return new OrderController(service);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class FluxApp {

        @Bean
        OrderService orderService() {
            return new OrderService();
        }

        @Bean
        ReactiveOrderController orderController(OrderService service) {
            return new ReactiveOrderController(service);
        }
    }

    static class OrderService {

        @DistributedLock(name = "web-order", key = "#id", waitTime = "0")
        public String process(String id) {
            return "order " + id;
        }

        @DistributedLock(name = "web-order", key = "#id", waitTime = "0")
        public Mono<String> processReactive(String id) {
            return Mono.fromSupplier(() -> "order " + id);
        }

        @DistributedLock(name = "web-wait", key = "#id", waitTime = "5s")
        public String waitFor(String id) {
            return "waited " + id;
        }

        @DistributedLock(name = "web-wait", key = "#id", waitTime = "5s")
        public Mono<String> waitForReactive(String id) {
            return Mono.fromSupplier(() -> "waited " + id);
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

        @GetMapping("/waits/{id}")
        String waitFor(@PathVariable("id") String id) {
            return service.waitFor(id);
        }
    }

    @RestController
    static class ReactiveOrderController {

        private final OrderService service;

        ReactiveOrderController(OrderService service) {
            this.service = service;
        }

        @GetMapping("/orders/{id}")
        Mono<String> order(@PathVariable("id") String id) {
            return service.processReactive(id);
        }

        @GetMapping("/waits/{id}")
        Mono<String> waitFor(@PathVariable("id") String id) {
            return service.waitForReactive(id);
        }
    }
}
