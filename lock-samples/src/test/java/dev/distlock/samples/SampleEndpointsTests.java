package dev.distlock.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

/**
 * Starts the sample against the test Redis and calls every endpoint over HTTP.
 */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "samples.work-time=50ms",
            "samples.transfer-time=20ms",
            "samples.export-time=150ms",
            "samples.report-time=300ms",
            "samples.report-interval=1h",
            "samples.handoff-time=400ms",
            "samples.partner-time=200ms"
        })
class SampleEndpointsTests {

    @LocalServerPort
    int port;

    @Autowired
    LockClient client;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("distlock.redis.url", () -> RedisServers.shared().uri());
    }

    private RestClient http() {
        return RestClient.create("http://127.0.0.1:" + port);
    }

    private JsonNode post(String path) {
        return http().post().uri(path).retrieve().body(JsonNode.class);
    }

    private JsonNode put(String path) {
        return http().put().uri(path).retrieve().body(JsonNode.class);
    }

    private JsonNode get(String path) {
        return http().get().uri(path).retrieve().body(JsonNode.class);
    }

    @Test
    void whenARedisIsConfiguredThenTheEmbeddedOneIsNotUsed() {
        JsonNode health = get("/actuator/health");
        assertThat(health.get("status").asString()).isEqualTo("UP");
        assertThat(get("/actuator/distlock").get("clientId").asString()).isNotBlank();
    }

    @Test
    void whenBuyersRaceForTheLastUnitsThenEachUnitIsSoldOnce() {
        assertThat(put("/api/stock/pen?quantity=1").get("available").asInt()).isEqualTo(1);
        assertThat(post("/api/stock/pen/reservations?quantity=1")
                        .get("reserved")
                        .asBoolean())
                .isTrue();
        JsonNode second = post("/api/stock/pen/reservations?quantity=1");
        assertThat(second.get("reserved").asBoolean()).isFalse();
        assertThat(second.get("remaining").asInt()).isZero();
        assertThat(get("/api/stock/pen").get("available").asInt()).isZero();

        JsonNode demo = post("/api/demo/stock?sku=cup&units=3&buyers=6");
        assertThat(demo.get("reserved").asInt()).isEqualTo(3);
        assertThat(demo.get("rejected").asInt()).isEqualTo(3);
        assertThat(demo.get("remaining").asInt()).isZero();
    }

    @Test
    void whenCustomersArriveOneAfterAnotherThenTheyAreServedInArrivalOrder() {
        JsonNode ticket = post("/api/tickets?customer=ada");
        assertThat(ticket.get("customer").asString()).isEqualTo("ada");
        assertThat(ticket.get("number").asInt()).isPositive();

        JsonNode demo = post("/api/demo/tickets?customers=4&gapMillis=60");
        assertThat(demo.get("servedOrder")).hasSize(4);
        assertThat(demo.get("servedInArrivalOrder").asBoolean())
                .as(demo.toString())
                .isTrue();
    }

    @Test
    void whenReadersAndAWriterRunTogetherThenReadersShareAndTheWriterIsAlone() {
        assertThat(put("/api/prices/pear?price=0.75").get("price").decimalValue())
                .isEqualByComparingTo("0.75");
        assertThat(get("/api/prices/pear").get("price").decimalValue()).isEqualByComparingTo("0.75");

        JsonNode demo = post("/api/demo/prices?readers=4");
        assertThat(demo.get("mostConcurrentReaders").asInt())
                .as(demo.toString())
                .isGreaterThan(1);
        assertThat(demo.get("readersRunningDuringWrite").asInt())
                .as(demo.toString())
                .isZero();
    }

    @Test
    void whenTransfersRunBothWaysThenMoneyIsNeitherLostNorMade() {
        put("/api/accounts/carol?balance=100");
        put("/api/accounts/dave?balance=0");
        JsonNode transfer = post("/api/transfers?from=carol&to=dave&amount=30");
        assertThat(transfer.get("moved").asBoolean()).isTrue();
        assertThat(get("/api/accounts/carol").get("balance").asLong()).isEqualTo(70);
        assertThat(get("/api/accounts/dave").get("balance").asLong()).isEqualTo(30);

        JsonNode demo = post("/api/demo/transfers?transfers=6");
        assertThat(demo.get("completed").asInt()).isEqualTo(6);
        assertThat(demo.get("total").asLong()).isEqualTo(2000);
        assertThat(demo.get("balancesConsistent").asBoolean()).isTrue();
    }

    @Test
    void whenInstancesHitTheSameTickThenOneRunsTheJob() {
        JsonNode demo = post("/api/demo/report-job?instances=3");
        assertThat(demo.get("ran").asInt()).as(demo.toString()).isEqualTo(1);
        assertThat(demo.get("skipped").asInt()).isEqualTo(2);
        JsonNode stats = get("/api/report-job");
        assertThat(stats.get("runs").asInt()).isGreaterThanOrEqualTo(1);
        assertThat(stats.get("skips").asInt()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void whenExportsOfOneCustomerAreRequestedTogetherThenTheyRunOneAfterAnother() {
        JsonNode export = post("/api/exports/zed");
        assertThat(export.get("customer").asString()).isEqualTo("zed");

        JsonNode demo = post("/api/demo/exports?requests=3");
        assertThat(demo.get("exports")).hasSize(3);
        assertThat(demo.get("overlapped").asBoolean()).as(demo.toString()).isFalse();
    }

    @Test
    void whenWorkersIncrementWithTheLockThenNoUpdateIsLost() {
        JsonNode demo = post("/api/demo/contention?workers=4&increments=10");
        assertThat(demo.get("withLock").get("expected").asLong()).isEqualTo(40);
        assertThat(demo.get("withLock").get("lostUpdates").asLong()).isZero();
        assertThat(demo.get("withLock").get("actual").asLong()).isEqualTo(40);
        assertThat(demo.get("withoutLock").get("lostUpdates").asLong())
                .as(demo.toString())
                .isPositive();
    }

    @Test
    void whenADemoRunsThenTheEndpointShowsTheHeldLockAndTheMetricsCountIt() {
        CompletableFuture<JsonNode> demo =
                CompletableFuture.supplyAsync(() -> post("/api/demo/stock?sku=live&units=10&buyers=10"));
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> {
                    JsonNode held = get("/actuator/distlock").get("held");
                    assertThat(held.findValuesAsString("name")).contains("stock:live");
                });
        assertThat(demo.join().get("reserved").asInt()).isEqualTo(10);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                        get("/actuator/distlock").get("held").findValuesAsString("name"))
                .doesNotContain("stock:live"));

        // The URLs of docs/samples.md: one lock, one type, one outcome, so that nothing is added up.
        String stockAcquired = "tag=lock.name:stock&tag=lock.type:reentrant&tag=outcome:acquired";
        JsonNode acquire = get("/actuator/metrics/distlock.acquire?" + stockAcquired);
        assertThat(acquire.get("measurements").get(0).get("value").asDouble()).isGreaterThanOrEqualTo(10);
        double p95Seconds = get("/actuator/metrics/distlock.acquire.percentile?" + stockAcquired + "&tag=phi:0.95")
                .get("measurements")
                .get(0)
                .get("value")
                .asDouble();
        assertThat(p95Seconds).isPositive();

        JsonNode stats = get("/api/lock-stats");
        assertThat(stats.get("acquired").asLong()).isGreaterThanOrEqualTo(10);
        JsonNode stock = null;
        for (JsonNode row : stats.get("locks")) {
            if (row.get("name").asString().equals("stock")) {
                stock = row;
            }
        }
        assertThat(stock).as(stats.toString()).isNotNull();
        assertThat(stock.get("p50").asDouble()).isPositive();
        // The page's p95 of the stock row is the one the filtered percentile URL shows.
        assertThat(stock.get("p95").asDouble()).isCloseTo(p95Seconds * 1000, within(0.01));
        assertThat(stock.get("p99").asDouble())
                .isGreaterThanOrEqualTo(stock.get("p50").asDouble());
    }

    @Test
    void whenTheHandoffDemoRunsThenTheEndpointReportsItsEventsForTheTimeline() {
        long before = get("/actuator/distlock?eventsAfter=0")
                .get("events")
                .get("lastSequence")
                .asLong();
        JsonNode demo = post("/api/demo/handoff?workers=3&rounds=2");
        assertThat(demo.get("holds").asInt()).isEqualTo(6);
        assertThat(demo.get("impatientHeld").asBoolean()).as(demo.toString()).isFalse();

        JsonNode events = get("/actuator/distlock?eventsAfter=" + before).get("events");
        assertThat(events.get("recording").asBoolean()).isTrue();
        List<String> baton = new ArrayList<>();
        List<String> overrun = new ArrayList<>();
        for (JsonNode event : events.get("events")) {
            assertThat(event.get("sequence").asLong()).isGreaterThan(before);
            if (event.get("name").asString().equals("baton")) {
                baton.add(event.get("type").asString());
            } else if (event.get("name").asString().equals("baton-overrun")) {
                overrun.add(event.get("type").asString());
            }
        }
        assertThat(baton).filteredOn("acquired"::equals).hasSize(6);
        assertThat(baton).filteredOn("released"::equals).hasSize(6);
        assertThat(baton).containsOnlyOnce("timed-out");
        assertThat(overrun).containsExactly("acquired", "lease-lost");
        assertThat(get("/actuator/distlock").has("events"))
                .as("events only when asked for")
                .isFalse();
    }

    @Test
    void whenCallersCrowdThePartnerThenAtMostThePermitsCallItAtOnceAndTheTimelineShowsThePermits() {
        long before = get("/actuator/distlock?eventsAfter=0")
                .get("events")
                .get("lastSequence")
                .asLong();
        JsonNode demo = post("/api/demo/partner?callers=8");
        assertThat(demo.get("answered").asInt()).isEqualTo(8);
        assertThat(demo.get("permits").asInt()).isEqualTo(3);
        assertThat(demo.get("refused").asInt()).as(demo.toString()).isZero();
        assertThat(demo.get("mostAtOnce").asInt()).as(demo.toString()).isBetween(1, 3);

        // The permits reach the timeline as holds of one semaphore, never more than 3 at once.
        JsonNode events = get("/actuator/distlock?eventsAfter=" + before).get("events");
        List<double[]> holds = new ArrayList<>();
        java.util.Map<Long, Double> open = new java.util.HashMap<>();
        for (JsonNode event : events.get("events")) {
            if (!event.get("name").asString().equals("partner:partner-api")) {
                continue;
            }
            assertThat(event.get("lockType").asString()).isEqualTo("semaphore");
            long owner = event.get("ownerId").asLong();
            double time = event.get("time").asDouble();
            switch (event.get("type").asString()) {
                case "acquired" -> open.put(owner, time);
                case "released" -> holds.add(new double[] {open.remove(owner), time});
                default -> throw new AssertionError("unexpected event " + event);
            }
        }
        assertThat(holds).hasSize(8);
        assertThat(open).isEmpty();
        for (double[] hold : holds) {
            long atOnce = holds.stream()
                    .filter(other -> other[0] <= hold[0] && hold[0] < other[1])
                    .count();
            assertThat(atOnce).as("permits held when one was granted").isLessThanOrEqualTo(3);
        }

        String partnerAcquired = "tag=lock.name:partner&tag=lock.type:semaphore&tag=outcome:acquired";
        assertThat(get("/actuator/metrics/distlock.acquire?" + partnerAcquired)
                        .get("measurements")
                        .get(0)
                        .get("value")
                        .asDouble())
                .isGreaterThanOrEqualTo(8);
    }

    @Test
    void whenAJobFindsTheLockTakenThenTheTimeoutIsCounted() {
        CompletableFuture<JsonNode> demo =
                CompletableFuture.supplyAsync(() -> post("/api/demo/report-job?instances=2"));
        assertThat(demo.join().get("skipped").asInt()).isEqualTo(1);
        assertThat(get("/api/lock-stats").get("timeouts").asLong()).isPositive();
    }

    @Test
    void whenThePageIsRequestedThenItIsServedAndBadDemoArgumentsAreRejected() {
        ResponseEntity<String> page =
                http().get().uri("/").accept(MediaType.TEXT_HTML).retrieve().toEntity(String.class);
        assertThat(page.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(page.getBody()).contains("Distlock samples", "/actuator/distlock", "/api/demo/contention");

        HttpStatus status = http().post()
                .uri("/api/demo/contention?workers=0")
                .exchange((request, response) ->
                        HttpStatus.valueOf(response.getStatusCode().value()));
        assertThat(status).isEqualTo(HttpStatus.BAD_REQUEST);
    }
}
