package dev.distlock.core.internal.connection;

import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.event.EventBus;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;

/**
 * Tells callers waiting to write that a connection may have become usable: a connection was
 * (re)activated, or a Cluster's topology changed. A hint, not a promise: with shared resources it
 * also hears other clients' connections, and a caller re-checks by trying again.
 */
final class ConnectionChanges implements AutoCloseable {

    private final AtomicReference<CompletableFuture<Void>> next = new AtomicReference<>(new CompletableFuture<>());
    private final Disposable subscription;

    ConnectionChanges(EventBus events) {
        this.subscription = events.get()
                .filter(event ->
                        event instanceof ConnectionActivatedEvent || event instanceof ClusterTopologyChangedEvent)
                .subscribe(event -> signal(), failure -> signal());
    }

    /**
     * Returns a future completed at the next change. Take it before trying to write: a change
     * between a refused write and this call then still completes it.
     * @return completes at the next change
     */
    CompletableFuture<Void> next() {
        return next.get();
    }

    private void signal() {
        next.getAndSet(new CompletableFuture<>()).complete(null);
    }

    @Override
    public void close() {
        subscription.dispose();
        signal();
    }
}
