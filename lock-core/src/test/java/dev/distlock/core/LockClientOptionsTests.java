package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import io.lettuce.core.SslOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What the builder keeps, what it refuses and with which message; no Redis needed. */
class LockClientOptionsTests {

    @Test
    void whenNothingIsSetThenEveryDefaultApplies() {
        LockClientOptions options = LockClientOptions.builder().build();

        assertThat(options.uri()).isEqualTo("redis://localhost:6379");
        assertThat(options.sentinelMaster()).isNull();
        assertThat(options.sentinelNodes()).isEmpty();
        assertThat(options.clusterNodes()).isEmpty();
        assertThat(options.watchdogTimeout()).isEqualTo(LockClientOptions.DEFAULT_WATCHDOG_TIMEOUT);
        assertThat(options.commandTimeout()).isEqualTo(LockClientOptions.DEFAULT_COMMAND_TIMEOUT);
        assertThat(options.fairLockWaitTimeout()).isEqualTo(LockClientOptions.DEFAULT_FAIR_LOCK_WAIT_TIMEOUT);
        assertThat(options.reconnectDelayMin()).isEqualTo(LockClientOptions.DEFAULT_RECONNECT_DELAY_MIN);
        assertThat(options.reconnectDelayMax()).isEqualTo(LockClientOptions.DEFAULT_RECONNECT_DELAY_MAX);
        assertThat(options.keyPrefix()).isEmpty();
        assertThat(options.clientName()).isNull();
        assertThat(options.listeners()).isEmpty();
        assertThat(options.replicaSyncReplicas()).isZero();
        assertThat(options.replicaSyncTimeout()).isZero();
        assertThat(options.username()).isNull();
        assertThat(options.password()).isNull();
        assertThat(options.database()).isNull();
        assertThat(options.ssl()).isFalse();
        assertThat(options.sslOptions()).isNull();
        assertThat(options.clientResources()).isNull();
    }

    @Test
    void whenEverySettingIsSetThenTheOptionsReturnIt() {
        LockListener first = new LockListener() {};
        LockListener second = new LockListener() {};
        SslOptions ssl = SslOptions.builder().build();
        ClientResources resources = DefaultClientResources.create();
        try {
            LockClientOptions options = LockClientOptions.builder()
                    .sentinel("mymaster", "redis://s1:26379", "redis://s2:26379")
                    .credentials("app", "secret")
                    .database(2)
                    .ssl(ssl)
                    .clientResources(resources)
                    .reconnectDelay(Duration.ofMillis(5), Duration.ofMillis(500))
                    .clientName("orders")
                    .watchdogTimeout(Duration.ofSeconds(10))
                    .commandTimeout(Duration.ofSeconds(2))
                    .fairLockWaitTimeout(Duration.ofSeconds(7))
                    .keyPrefix("app:")
                    .replicaSync(1, Duration.ofMillis(200))
                    .addListener(first)
                    .addListener(second)
                    .build();

            assertThat(options.sentinelMaster()).isEqualTo("mymaster");
            assertThat(options.sentinelNodes()).containsExactly("redis://s1:26379", "redis://s2:26379");
            assertThat(options.username()).isEqualTo("app");
            assertThat(options.password()).isEqualTo("secret");
            assertThat(options.database()).isEqualTo(2);
            assertThat(options.ssl()).isTrue();
            assertThat(options.sslOptions()).isSameAs(ssl);
            assertThat(options.clientResources()).isSameAs(resources);
            assertThat(options.reconnectDelayMin()).isEqualTo(Duration.ofMillis(5));
            assertThat(options.reconnectDelayMax()).isEqualTo(Duration.ofMillis(500));
            assertThat(options.clientName()).isEqualTo("orders");
            assertThat(options.watchdogTimeout()).isEqualTo(Duration.ofSeconds(10));
            assertThat(options.commandTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(options.fairLockWaitTimeout()).isEqualTo(Duration.ofSeconds(7));
            assertThat(options.keyPrefix()).isEqualTo("app:");
            assertThat(options.replicaSyncReplicas()).isEqualTo(1);
            assertThat(options.replicaSyncTimeout()).isEqualTo(Duration.ofMillis(200));
            assertThat(options.listeners()).containsExactly(first, second);
        } finally {
            resources.shutdown();
        }
    }

    @Test
    void whenOptionsAreBuiltThenLaterChangesToTheBuilderDoNotReachThem() {
        LockClientOptions.Builder builder =
                LockClientOptions.builder().cluster("redis://c1:7000").addListener(new LockListener() {});
        LockClientOptions built = builder.build();

        builder.cluster("redis://c2:7001").keyPrefix("later:").listener(new LockListener() {});

        assertThat(built.clusterNodes()).containsExactly("redis://c1:7000");
        assertThat(built.keyPrefix()).isEmpty();
        assertThat(built.listeners()).hasSize(1);
        assertThat(builder.build().listeners()).hasSize(1).doesNotContainAnyElementsOf(built.listeners());
    }

    @Test
    void shouldRefuseBadArgumentsNamingThem() {
        LockClientOptions.Builder builder = LockClientOptions.builder();
        assertThatIllegalArgumentException().isThrownBy(() -> builder.uri(" ")).withMessage("'uri' must not be blank");
        assertThatNullPointerException().isThrownBy(() -> builder.uri(null)).withMessage("'uri' must not be null");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.sentinel("", "redis://s1:26379"))
                .withMessage("'masterId' must not be blank");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.sentinel("mymaster"))
                .withMessage("'nodeUris' must name at least one node");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.cluster("redis://c1:7000", " "))
                .withMessage("'nodeUris element' must not be blank");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.credentials("app", null))
                .withMessage("'password' must not be null when 'username' is set");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.database(-1))
                .withMessage("'database' must not be negative, was -1");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.fairLockWaitTimeout(Duration.ZERO))
                .withMessage("'fairLockWaitTimeout' must be positive, was PT0S");
        assertThatNullPointerException()
                .isThrownBy(() -> builder.keyPrefix(null))
                .withMessage("'keyPrefix' must not be null");
        assertThatNullPointerException()
                .isThrownBy(() -> builder.addListener(null))
                .withMessage("'listener' must not be null");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.replicaSync(0, Duration.ofMillis(200)))
                .withMessage("'replicas' must be at least 1, was 0");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.replicaSync(1, Duration.ZERO))
                .withMessage("'timeout' must be positive, was PT0S");
    }

    @Test
    void whenASettingIsRefusedThenTheBuilderKeepsWhatItHadBefore() {
        LockClientOptions.Builder builder = LockClientOptions.builder();

        assertThatIllegalArgumentException().isThrownBy(() -> builder.replicaSync(2, Duration.ofMillis(-1)));

        assertThat(builder.build().replicaSyncReplicas()).isZero();
    }

    @Test
    void whenTheTopologiesConflictThenBuildSaysWhich() {
        assertThatIllegalStateException()
                .isThrownBy(() -> LockClientOptions.builder()
                        .sentinel("mymaster", "redis://s1:26379")
                        .cluster("redis://c1:7000")
                        .build())
                .withMessage("Choose either sentinel(...) or cluster(...), not both");
        assertThatIllegalStateException()
                .isThrownBy(() -> LockClientOptions.builder()
                        .cluster("redis://c1:7000")
                        .database(3)
                        .build())
                .withMessageContaining("database(3) is not supported with cluster(...)");
        assertThat(LockClientOptions.builder()
                        .cluster("redis://c1:7000")
                        .database(0)
                        .build()
                        .clusterNodes())
                .containsExactly("redis://c1:7000");
        assertThat(LockClientOptions.builder().ssl(null).build().ssl()).isTrue();
    }
}
