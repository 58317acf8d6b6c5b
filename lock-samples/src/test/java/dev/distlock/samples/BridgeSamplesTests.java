package dev.distlock.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

/**
 * The sample's @SchedulerLock job and leader-elected task over HTTP, and both on the timeline's
 * event feed. The job's lock name and the leader role are this test's own, so that other sample
 * contexts on the same Redis neither run the job nor lead.
 */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "samples.cleanup-time=300ms",
            "samples.cleanup-interval=1h",
            "samples.leader-interval=200ms",
            "samples.report-interval=1h"
        })
class BridgeSamplesTests {

    private static final String JOB = "cleanup-" + UUID.randomUUID();
    private static final String ROLE = "leader-" + UUID.randomUUID();

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("distlock.redis.url", () -> RedisServers.shared().uri());
        registry.add("samples.cleanup-job", () -> JOB);
        registry.add("samples.leader-role", () -> ROLE);
    }

    private RestClient http() {
        return RestClient.create("http://127.0.0.1:" + port);
    }

    private JsonNode get(String path) {
        return http().get().uri(path).retrieve().body(JsonNode.class);
    }

    private JsonNode post(String path) {
        return http().post().uri(path).retrieve().body(JsonNode.class);
    }

    /** Whether the timeline's feed has an event of the lock. */
    private boolean onTimeline(String lockName) {
        JsonNode events = get("/actuator/distlock?eventsAfter=0").get("events").get("events");
        for (JsonNode event : events) {
            if (event.get("name").asString().equals(lockName)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void whenInstancesHitTheSameTickOfTheSchedulerLockJobThenOneRunsItAndItShowsOnTheTimeline() {
        JsonNode demo = post("/api/demo/cleanup-job?instances=3");
        assertThat(demo.get("ran").asInt()).as(demo.toString()).isEqualTo(1);
        assertThat(demo.get("skipped").asInt()).isEqualTo(2);
        assertThat(get("/api/cleanup-job").get("runs").asInt()).isEqualTo(1);
        assertThat(onTimeline(JOB)).as("the job's lock on the timeline").isTrue();

        // lockAtLeastFor (1 s) keeps the lock after the run; then the next tick runs again.
        await().atMost(Duration.ofSeconds(15))
                .until(() ->
                        post("/api/demo/cleanup-job?instances=1").get("ran").asInt() == 1);
        assertThat(get("/api/cleanup-job").get("runs").asInt()).isEqualTo(2);
    }

    @Test
    void whenTheAppStartsThenItLeadsRunsTheTaskWithItsTokenAndAYieldElectsItAgainWithANewerToken() {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> get("/api/leader").get("leader").asBoolean());
        JsonNode state = get("/api/leader");
        assertThat(state.get("role").asString()).isEqualTo(ROLE);
        long token = state.get("fencingToken").asLong();
        assertThat(token).isPositive();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> get("/api/leader").get("runs").asInt() > 0);
        assertThat(onTimeline(ROLE)).as("the leader's lock on the timeline").isTrue();

        JsonNode demo = post("/api/demo/leader");
        assertThat(demo.get("wasLeader").asBoolean()).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode now = get("/api/leader");
            return now.get("leader").asBoolean() && now.get("fencingToken").asLong() > token;
        });
        await().atMost(Duration.ofSeconds(10))
                .until(() -> get("/api/leader").get("lastRunToken").asLong() > token);
    }
}
