package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockListener;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockEndpointAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockMetricsAutoConfiguration;
import dev.distlock.spring.internal.actuator.DistlockEndpoint;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Red-lock node clients carry the listener of the main client: a RED hold whose lease is lost on a
 * majority of nodes is reported, counted and policed; a loss on a minority is not; and the endpoint
 * lists RED holds. Real Redis servers, one per node.
 */
class RedLockNodeClientsTests {

    private static List<RedisServer> nodes;

    private final List<String> lostEvents = new CopyOnWriteArrayList<>();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DistlockAutoConfiguration.class,
                        DistlockMetricsAutoConfiguration.class,
                        DistlockEndpointAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(LockListener.class, () -> new LockListener() {
                    @Override
                    public void onLeaseLost(String lockName, long ownerId) {
                        lostEvents.add(lockName);
                    }
                })
                .withPropertyValues(
                        "distlock.redis.url=" + nodes.get(0).uri(),
                        "distlock.watchdog-timeout=3s",
                        "distlock.lease-lost-policy=throw",
                        "management.endpoints.web.exposure.include=distlock",
                        "distlock.redlock.nodes="
                                + String.join(
                                        ",",
                                        nodes.stream().map(RedisServer::uri).toList()));
    }

    @BeforeAll
    static void startNodes() {
        nodes = RedisServers.start(3);
    }

    @AfterAll
    static void stopNodes() {
        nodes.forEach(RedisServer::stop);
    }

    @BeforeEach
    void flush() {
        nodes.forEach(node -> node.command("FLUSHALL"));
    }

    @Test
    void whenARedHoldLosesItsLeaseOnAMajorityThenThePolicyAndTheMetricApply() {
        runner().run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            assertThatExceptionOfType(LockLeaseExpiredException.class)
                    .isThrownBy(() -> template.execute(
                            "red-lost", LockOptions.of(LockType.RED).withWaitTime(Duration.ofSeconds(5)), () -> {
                                LockContext hold = LockContext.current();
                                nodes.get(0).command("DEL", "red-lost");
                                nodes.get(1).command("DEL", "red-lost");
                                await().atMost(Duration.ofSeconds(20)).until(() -> !hold.isHeld());
                            }));
            assertThat(lostEvents).contains("red-lost");
            assertThat(context.getBean(MeterRegistry.class)
                            .get("distlock.lease.lost")
                            .counter()
                            .count())
                    .isEqualTo(1);
        });
    }

    @Test
    void whenARedHoldLosesItsLeaseOnAMinorityThenItIsStillHeld() {
        runner().run(context -> {
            AtomicBoolean ran = new AtomicBoolean();
            context.getBean(LockTemplate.class)
                    .execute("red-minority", LockOptions.of(LockType.RED).withWaitTime(Duration.ofSeconds(5)), () -> {
                        nodes.get(2).command("DEL", "red-minority");
                        // The node's watchdog reports the loss to the application's listener...
                        await().atMost(Duration.ofSeconds(20)).until(() -> lostEvents.contains("red-minority"));
                        // ...but two of three nodes still hold it: the hold is not lost.
                        assertThat(LockContext.current().isHeld()).isTrue();
                        ran.set(true);
                    });
            assertThat(ran).isTrue();
        });
    }

    @Test
    void whenARedLockIsHeldThenTheEndpointListsItsHoldOnEveryNode() {
        runner().run(context -> context.getBean(LockTemplate.class)
                .execute("red-listed", LockOptions.of(LockType.RED).withWaitTime(Duration.ofSeconds(5)), () -> {
                    DistlockEndpointReplies.LocksReport report =
                            context.getBean(DistlockEndpoint.class).locks();
                    assertThat(report.held())
                            .filteredOn(h -> h.name().equals("red-listed"))
                            .extracting(
                                    DistlockEndpointReplies.HeldLockReport::type,
                                    DistlockEndpointReplies.HeldLockReport::redLockNode)
                            .containsExactlyInAnyOrder(
                                    org.assertj.core.groups.Tuple.tuple("red", 0),
                                    org.assertj.core.groups.Tuple.tuple("red", 1),
                                    org.assertj.core.groups.Tuple.tuple("red", 2));
                    assertThat(report.held())
                            .filteredOn(h -> h.name().equals("red-listed"))
                            .allSatisfy(h -> assertThat(h.annotationName()).isEqualTo("red-listed"));
                    DistlockEndpointReplies.LockState state =
                            context.getBean(DistlockEndpoint.class).lock("red-listed");
                    assertThat(state.redLockNodes())
                            .extracting(DistlockEndpointReplies.NodeState::state)
                            .containsExactly("locked", "locked", "locked");
                }));
    }
}
