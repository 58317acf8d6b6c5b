package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockClientCustomizer;
import dev.distlock.spring.autoconfigure.DistlockObservationAutoConfiguration;
import dev.distlock.spring.observation.DefaultLockAcquireObservationConvention;
import dev.distlock.spring.observation.LockAcquireObservationConvention;
import dev.distlock.spring.observation.LockObservationContext;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Replaceable observation conventions, and Lettuce client resources shared with Spring Boot. */
class ObservationConventionAndClientResourcesTests {

    static final RedisServer redis = RedisServers.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    ObservationAutoConfiguration.class,
                    DataRedisAutoConfiguration.class,
                    DistlockAutoConfiguration.class,
                    DistlockObservationAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + redis.uri(), "distlock.key-prefix=conv:");

    @Test
    void shouldUseAConventionBeanInsteadOfTheDefault() {
        SimpleTracer tracer = new SimpleTracer();
        runner.withBean(ObservationHandler.class, () -> new DefaultTracingObservationHandler(tracer))
                .withBean(LockAcquireObservationConvention.class, TenantAcquireConvention::new)
                .run(context -> {
                    context.getBean(LockTemplate.class).execute("conv-lock", () -> {});
                    SimpleSpan acquire = tracer.getSpans().stream()
                            .filter(span -> "tenant acquire".equals(span.getName()))
                            .findFirst()
                            .orElseThrow();
                    assertThat(acquire.getTags())
                            .containsEntry("tenant", "t1")
                            .containsEntry("lock.name", "conv-lock")
                            .containsEntry("outcome", "acquired");
                    // The held observation keeps its default convention.
                    assertThat(tracer.getSpans()).anyMatch(span -> "distlock held conv-lock".equals(span.getName()));
                });
    }

    @Test
    void shouldRunLockScriptsThroughTheClientResourcesBean() {
        List<String> commands = new CopyOnWriteArrayList<>();
        CommandLatencyRecorder recorder = new CommandLatencyRecorder() {
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
        };
        ClientResources resources = DefaultClientResources.builder()
                .commandLatencyRecorder(recorder)
                .build();
        try {
            runner.withBean(ClientResources.class, () -> resources).run(context -> {
                context.getBean(LockTemplate.class).execute("resources-lock", () -> {});
                // Lettuce reports every lock script through the shared resources' recorder.
                assertThat(commands).anyMatch(command -> command.startsWith("EVAL"));
            });
            // Closing the context's lock client left the shared resources running.
            assertThat(resources.eventExecutorGroup().isShuttingDown()).isFalse();
        } finally {
            resources.shutdown();
        }
    }

    @Test
    void shouldShareSpringBootsClientResourcesWithTheLockClient() {
        AtomicReference<LockClientOptions.Builder> seen = new AtomicReference<>();
        runner.withBean(DistlockClientCustomizer.class, () -> seen::set).run(context -> {
            assertThat(context).hasSingleBean(ClientResources.class);
            assertThat(context.getBean(dev.distlock.core.LockClient.class)).isNotNull();
            assertThat(seen.get().build().clientResources()).isSameAs(context.getBean(ClientResources.class));
        });
    }

    static class TenantAcquireConvention extends DefaultLockAcquireObservationConvention {

        @Override
        public String getContextualName(LockObservationContext context) {
            return "tenant acquire";
        }

        @Override
        public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
            return super.getLowCardinalityKeyValues(context).and("tenant", "t1");
        }
    }
}
