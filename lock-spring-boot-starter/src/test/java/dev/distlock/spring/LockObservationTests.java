package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The distlock.acquire and distlock.held observations of a locked call: spans under the caller's
 * span, and the timers the default meter handler derives from them.
 */
@DistlockRedisTest
@SpringBootTest(
        classes = {TestApplication.class, LockObservationTests.TracingConfiguration.class},
        properties = {"test.lock.name=named", "test.lock.region=eu-", "distlock.key-prefix=obs:"})
class LockObservationTests {

    @Autowired
    LockedService service;

    @Autowired
    LockTemplate template;

    @Autowired
    LockClient client;

    @Autowired
    ObservationRegistry observations;

    @Autowired
    SimpleTracer tracer;

    @Autowired
    MeterRegistry meters;

    @BeforeEach
    void clearSpans() {
        tracer.getSpans().clear();
    }

    @Test
    void shouldReportAcquireAndHeldSpansAsChildrenOfTheCallersSpan() {
        Observation caller =
                Observation.createNotStarted("caller", observations).start();
        try (Observation.Scope scope = caller.openScope()) {
            assertThat(service.byParameterName("42")).contains("42");
        } finally {
            caller.stop();
        }
        SimpleSpan callerSpan = span("caller");
        SimpleSpan acquire = span("distlock acquire orders");
        SimpleSpan held = span("distlock held orders");

        assertThat(acquire.getParentId()).isEqualTo(callerSpan.getSpanId());
        assertThat(held.getParentId()).isEqualTo(callerSpan.getSpanId());
        assertThat(acquire.getTraceId()).isEqualTo(callerSpan.getTraceId());
        assertThat(held.getTraceId()).isEqualTo(callerSpan.getTraceId());
        assertThat(acquire.getTags())
                .containsEntry("lock.name", "orders")
                .containsEntry("lock.type", "reentrant")
                .containsEntry("outcome", "acquired")
                .containsKey("lock.owner");
        assertThat(acquire.getTags().get("lock.key")).contains("42").isNotEqualTo("orders");
        assertThat(held.getTags())
                .containsEntry("lock.name", "orders")
                .containsEntry("lock.type", "reentrant")
                .containsEntry("lock.owner", acquire.getTags().get("lock.owner"))
                .containsEntry("lock.key", acquire.getTags().get("lock.key"));
        // The hold begins when the acquisition ends.
        assertThat(held.getStartTimestamp()).isAfterOrEqualTo(acquire.getEndTimestamp());
        assertThat(held.getEndTimestamp()).isAfterOrEqualTo(held.getStartTimestamp());
    }

    @Test
    void shouldReportAMonoMethodsSpansUnderTheSubscribersSpanThoughItAcquiresOnAnotherThread() {
        Observation caller =
                Observation.createNotStarted("reactive caller", observations).start();
        try (Observation.Scope scope = caller.openScope()) {
            assertThat(service.monoWaiting("7").block(Duration.ofSeconds(10))).isNotNull();
        } finally {
            caller.stop();
        }
        SimpleSpan callerSpan = span("reactive caller");
        assertThat(span("distlock acquire mono-wait").getParentId()).isEqualTo(callerSpan.getSpanId());
        assertThat(span("distlock held mono-wait").getParentId()).isEqualTo(callerSpan.getSpanId());
    }

    @Test
    void shouldMarkTheAcquireSpanAsTimeoutAndReportNoHoldWhenTheWaitRunsOut() throws Exception {
        RedisLock other = client.getLock("obs-busy");
        assertThat(other.tryLock(0, 30_000, TimeUnit.MILLISECONDS, 777L)).isTrue();
        try {
            LockResult<String> result = template.tryExecute("obs-busy", Duration.ofMillis(50), () -> "ran");
            assertThat(result.wasExecuted()).isFalse();
        } finally {
            other.unlock(777L);
        }
        SimpleSpan acquire = span("distlock acquire obs-busy");
        assertThat(acquire.getTags()).containsEntry("outcome", "timeout");
        assertThat(tracer.getSpans()).noneMatch(s -> "distlock held obs-busy".equals(s.getName()));
        assertThat(meters.get("distlock.acquire")
                        .tags("lock.name", "obs-busy", "outcome", "timeout")
                        .timer()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void shouldMarkTheHeldSpanWithALeaseLostEventWhenTheLeaseRunsOutUnderTheCall() {
        String ran = template.execute(
                "obs-lost", LockOptions.of(LockType.REENTRANT).withLeaseTime(Duration.ofMillis(200)), () -> {
                    await().atMost(Duration.ofSeconds(5))
                            .until(() -> !client.getLock("obs-lost").isLocked());
                    return "ran";
                });
        assertThat(ran).isEqualTo("ran");
        assertThat(span("distlock held obs-lost").getEvents())
                .extracting(Map.Entry::getValue)
                .containsExactly("lease lost");
        assertThat(span("distlock acquire obs-lost").getEvents()).isEmpty();
    }

    @Test
    void whenALeaseIsLostThenOnlyTheDocumentedMetersAppear() throws IOException {
        String ran = template.execute(
                "obs-lost-meters", LockOptions.of(LockType.REENTRANT).withLeaseTime(Duration.ofMillis(200)), () -> {
                    await().atMost(Duration.ofSeconds(5))
                            .until(() -> !client.getLock("obs-lost-meters").isLocked());
                    return "ran";
                });
        assertThat(ran).isEqualTo("ran");
        assertThat(meters.get("distlock.lease.lost")
                        .tags("lock.name", "obs-lost-meters")
                        .counter()
                        .count())
                .isEqualTo(1);
        // The held span's lease-lost event is for traces; the default meter handler must not count it
        // again as distlock.held.distlock.lease.lost.
        assertThat(meters.getMeters().stream()
                        .map(Meter::getId)
                        .filter(id -> "obs-lost-meters".equals(id.getTag("lock.name")))
                        .map(Meter.Id::getName)
                        .distinct())
                .isNotEmpty()
                .allSatisfy(name -> assertThat(documentedMeters())
                        .as("meters of docs/spring-boot.md#metrics")
                        .contains(name));
    }

    /** The meters of the table in docs/spring-boot.md's Metrics section. */
    private static Set<String> documentedMeters() throws IOException {
        Path start = Path.of("").toAbsolutePath();
        Path root = start;
        while (root != null && !Files.isRegularFile(root.resolve("docs/spring-boot.md"))) {
            root = root.getParent();
        }
        assertThat(root)
                .as("a directory with docs/spring-boot.md at or above %s", start)
                .isNotNull();
        String docs = Files.readString(root.resolve("docs/spring-boot.md"));
        String section = docs.substring(docs.indexOf("\n## Metrics\n"));
        section = section.substring(0, section.indexOf("\n## ", 1));
        Set<String> names = new TreeSet<>();
        Matcher row = Pattern.compile("(?m)^\\| `(distlock\\.[a-z.]+)` \\|").matcher(section);
        while (row.find()) {
            names.add(row.group(1));
        }
        assertThat(names).as("meters documented in docs/spring-boot.md").contains("distlock.lease.lost");
        return names;
    }

    @Test
    void shouldRecordTimersWithTheLockTagsOnlyAndALongTaskTimerForHolds() {
        template.execute("obs-meters", () -> {
            LongTaskTimer holds = meters.get("distlock.held.active")
                    .tags("lock.name", "obs-meters")
                    .longTaskTimer();
            assertThat(holds.activeTasks()).isEqualTo(1);
        });
        assertThat(meters.get("distlock.acquire")
                        .tags("lock.name", "obs-meters", "lock.type", "reentrant", "outcome", "acquired")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(meters.get("distlock.held")
                        .tags("lock.name", "obs-meters", "lock.type", "reentrant")
                        .timer()
                        .count())
                .isEqualTo(1);
        // The acquisition's long-task timer, documented beside distlock.held.active.
        assertThat(meters.get("distlock.acquire.active")
                        .tags("lock.name", "obs-meters")
                        .longTaskTimer()
                        .activeTasks())
                .isZero();
        // No deprecated duplicates: every Distlock meter is tagged lock.name/lock.type, none name/type.
        assertThat(meters.getMeters().stream()
                        .map(Meter::getId)
                        .filter(id -> id.getName().startsWith("distlock."))
                        .filter(id -> "obs-meters".equals(id.getTag("lock.name"))))
                .isNotEmpty()
                .allSatisfy(id -> {
                    assertThat(id.getTag("name")).as("%s", id).isNull();
                    assertThat(id.getTag("type")).as("%s", id).isNull();
                });
        // Gauges and the counter carry the timers' tags; the counter exists at 0 before any loss.
        assertThat(meters.get("distlock.active")
                        .tags("lock.name", "obs-meters", "lock.type", "reentrant")
                        .gauge()
                        .value())
                .isZero();
        assertThat(meters.get("distlock.waiting")
                        .tags("lock.name", "obs-meters", "lock.type", "reentrant")
                        .gauge()
                        .value())
                .isZero();
        assertThat(meters.get("distlock.lease.lost")
                        .tags("lock.name", "obs-meters", "lock.type", "reentrant")
                        .counter()
                        .count())
                .isZero();
        assertThat(meters.get("distlock.held.active")
                        .tags("lock.name", "obs-meters")
                        .longTaskTimer()
                        .activeTasks())
                .isZero();
        // One timer per lock name, never one per resolved key.
        assertThat(meters.find("distlock.acquire").timers())
                .allSatisfy(
                        timer -> assertThat(timer.getId().getTag("lock.key")).isNull());
    }

    @Test
    void whenACallWaitsThenItsActiveTaskMeterCarriesOnlyTheLockTags() throws Exception {
        RedisLock other = client.getLock("obs-waiting");
        assertThat(other.tryLock(0, 30_000, TimeUnit.MILLISECONDS, 778L)).isTrue();
        CompletableFuture<LockResult<String>> call = CompletableFuture.supplyAsync(
                () -> template.tryExecute("obs-waiting", Duration.ofSeconds(20), () -> "ran"));
        try {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> meters.find("distlock.acquire.active").longTaskTimers().stream()
                            .anyMatch(
                                    timer -> "obs-waiting".equals(timer.getId().getTag("lock.name"))
                                            && timer.activeTasks() == 1));
            assertThat(meters.find("distlock.acquire.active").longTaskTimers())
                    .filteredOn(timer -> "obs-waiting".equals(timer.getId().getTag("lock.name")))
                    .singleElement()
                    .satisfies(timer -> assertThat(timer.getId().getTags())
                            .extracting(Tag::getKey)
                            .containsExactlyInAnyOrder("lock.name", "lock.type"));
        } finally {
            other.unlock(778L);
        }
        assertThat(call.get(20, TimeUnit.SECONDS).wasExecuted()).isTrue();
        assertThat(meters.get("distlock.acquire")
                        .tags("lock.name", "obs-waiting", "outcome", "acquired")
                        .timer()
                        .count())
                .isEqualTo(1);
    }

    private SimpleSpan span(String name) {
        List<SimpleSpan> spans =
                tracer.getSpans().stream().filter(s -> name.equals(s.getName())).toList();
        assertThat(spans)
                .as(
                        "spans named '%s' among %s",
                        name,
                        tracer.getSpans().stream().map(SimpleSpan::getName).toList())
                .hasSize(1);
        return spans.get(0);
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class TracingConfiguration {

        @Bean
        SimpleTracer simpleTracer() {
            return new SimpleTracer();
        }

        @Bean
        ObservationHandler<Observation.Context> tracingHandler(SimpleTracer tracer) {
            return new DefaultTracingObservationHandler(tracer);
        }
    }
}
