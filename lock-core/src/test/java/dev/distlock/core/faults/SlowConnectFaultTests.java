package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.bootstrap.Bootstrap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A client's first call opens its connection, and opening it takes longer than the command timeout
 * (a Cluster client learning the topology on a busy machine; here, the client's Netty bootstrap is
 * held up on its first connection). The command timeout bounds Redis' answer once connected, as for
 * acquire and release: the inspection calls, {@code forceUnlock}, {@code getToken} and {@code ping}
 * must not fail with "did not answer" while the connection is still being opened.
 */
@Tag("fault")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SlowConnectFaultTests {

    /** Shorter than opening the connection takes, so a call that counts connecting against it fails. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(400);

    /** How long the first connection's bootstrap is held up: past the command timeout and its slack. */
    private static final Duration SLOW_OPEN = Duration.ofMillis(1500);

    private static RedisServer redis;
    private final List<LockClient> clients = new ArrayList<>();
    private final List<ClientResources> resources = new ArrayList<>();
    private String name;

    @BeforeAll
    static void startRedis() {
        redis = RedisServers.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.stop();
    }

    @BeforeEach
    void setUp() {
        name = "slow-connect:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        clients.forEach(LockClient::close);
        resources.forEach(ClientResources::shutdown);
    }

    static Stream<Arguments> firstCalls() {
        return Stream.of(
                call("isLocked", (client, name) -> client.getLock(name).isLocked(), true),
                call("isHeldBy", (client, name) -> client.getLock(name).isHeldBy(1), false),
                call(
                        "remainTimeToLive > 0",
                        (client, name) -> client.getLock(name).remainTimeToLive() > 0,
                        true),
                call("getHoldCount", (client, name) -> client.getLock(name).getHoldCount(), 0),
                call("inspect", (client, name) -> client.inspect(name).locked(), true),
                call("forceUnlock", (client, name) -> client.getLock(name).forceUnlock(), true),
                call(
                        "getToken",
                        (client, name) -> client.getFencedLock(name + ":fenced").getToken(),
                        0L),
                call("ping", (client, name) -> client.ping() != null, true));
    }

    private static Arguments call(String label, FirstCall call, Object expected) {
        return Arguments.of(label, call, expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("firstCalls")
    void whenTheFirstCallOpensTheConnectionSlowlyThenItRunsOnceConnected(String label, FirstCall call, Object expected)
            throws Exception {
        LockClient holder = client(false);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> holder.ping() != null);
        RedisLock held = holder.getLock(name);
        assertThat(held.tryLock(0, 60, TimeUnit.SECONDS)).isTrue();

        LockClient fresh = client(true);
        assertThat(call.apply(fresh, name)).as(label).isEqualTo(expected);
    }

    private LockClient client(boolean slowToOpen) {
        LockClientOptions.Builder options =
                LockClientOptions.builder().uri(redis.uri()).commandTimeout(COMMAND_TIMEOUT);
        if (slowToOpen) {
            ClientResources slow = ClientResources.builder()
                    .nettyCustomizer(new SlowFirstBootstrap())
                    .build();
            resources.add(slow);
            options.clientResources(slow);
        }
        LockClient client = LockClient.create(options.build());
        clients.add(client);
        return client;
    }

    /** Holds up the first connection's bootstrap, on the thread that opens it, as a loaded machine does. */
    private static final class SlowFirstBootstrap implements NettyCustomizer {

        private final AtomicBoolean first = new AtomicBoolean(true);

        @Override
        public void afterBootstrapInitialized(Bootstrap bootstrap) {
            if (first.getAndSet(false)) {
                try {
                    // The fault's length, not a wait for something to happen.
                    Thread.sleep(SLOW_OPEN.toMillis());
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** One call on a client that has not connected yet. */
    @FunctionalInterface
    interface FirstCall {
        Object apply(LockClient client, String name);
    }
}
