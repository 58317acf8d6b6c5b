package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A client built with shared Lettuce resources runs its scripts through them and leaves them open. */
class SharedClientResourcesTests {

    static final RedisServer redis = RedisServers.shared();

    @Test
    void shouldRunLockScriptsThroughSharedResourcesAndLeaveThemOpenOnClose() throws Exception {
        List<String> commands = new CopyOnWriteArrayList<>();
        ClientResources resources = DefaultClientResources.builder()
                .commandLatencyRecorder(new CommandLatencyRecorder() {
                    @Override
                    public void recordCommandLatency(
                            SocketAddress local,
                            SocketAddress remote,
                            ProtocolKeyword commandType,
                            long firstResponseLatency,
                            long completionLatency) {
                        commands.add(commandType.toString());
                    }

                    @Override
                    public boolean isEnabled() {
                        return true;
                    }
                })
                .build();
        try {
            LockClientOptions options = LockClientOptions.builder()
                    .uri(redis.uri())
                    .clientResources(resources)
                    .build();
            assertThat(options.clientResources()).isSameAs(resources);
            try (LockClient client = LockClient.create(options)) {
                RedisLock lock = client.getLock("shared-resources");
                assertThat(lock.tryLock()).isTrue();
                lock.unlock();
            }
            assertThat(commands).anyMatch(command -> command.startsWith("EVAL"));
            assertThat(resources.eventExecutorGroup().isShuttingDown()).isFalse();
        } finally {
            resources.shutdown();
        }
    }

    @Test
    void shouldOwnItsResourcesByDefault() {
        assertThat(LockClientOptions.builder().build().clientResources()).isNull();
    }
}
