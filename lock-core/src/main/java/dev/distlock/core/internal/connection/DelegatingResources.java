package dev.distlock.core.internal.connection;

import io.lettuce.core.event.EventBus;
import io.lettuce.core.event.EventPublisherOptions;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.lettuce.core.resource.NettyCustomizer;
import io.lettuce.core.resource.SocketAddressResolver;
import io.lettuce.core.tracing.Tracing;
import io.netty.resolver.AddressResolverGroup;
import io.netty.util.Timer;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Shared resources (event loops, timer, tracing, latency metrics) with the client's own reconnect
 * back-off: the owner of the shared resources chose their delay for its own connections, and the
 * lock client's calls wait for its reconnects. Shutting this down does nothing; the owner shuts the
 * shared resources down.
 */
final class DelegatingResources implements ClientResources {

    private final ClientResources shared;
    private final Delay reconnectDelay;

    DelegatingResources(ClientResources shared, Delay reconnectDelay) {
        this.shared = shared;
        this.reconnectDelay = reconnectDelay;
    }

    @Override
    public Builder mutate() {
        return shared.mutate().reconnectDelay(reconnectDelay);
    }

    @Override
    public Future<Boolean> shutdown() {
        return io.netty.util.concurrent.ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
    }

    @Override
    public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit timeUnit) {
        return shutdown();
    }

    @Override
    public AddressResolverGroup<?> addressResolverGroup() {
        return shared.addressResolverGroup();
    }

    @Override
    public EventPublisherOptions commandLatencyPublisherOptions() {
        return shared.commandLatencyPublisherOptions();
    }

    @Override
    public CommandLatencyRecorder commandLatencyRecorder() {
        return shared.commandLatencyRecorder();
    }

    @Override
    public int computationThreadPoolSize() {
        return shared.computationThreadPoolSize();
    }

    @Override
    public EventBus eventBus() {
        return shared.eventBus();
    }

    @Override
    public EventLoopGroupProvider eventLoopGroupProvider() {
        return shared.eventLoopGroupProvider();
    }

    @Override
    public EventExecutorGroup eventExecutorGroup() {
        return shared.eventExecutorGroup();
    }

    @Override
    public int ioThreadPoolSize() {
        return shared.ioThreadPoolSize();
    }

    @Override
    public NettyCustomizer nettyCustomizer() {
        return shared.nettyCustomizer();
    }

    @Override
    public Delay reconnectDelay() {
        return reconnectDelay;
    }

    @Override
    public SocketAddressResolver socketAddressResolver() {
        return shared.socketAddressResolver();
    }

    @Override
    public Timer timer() {
        return shared.timer();
    }

    @Override
    public Tracing tracing() {
        return shared.tracing();
    }
}
