package dev.distlock.core.internal.connection;

import dev.distlock.core.LockException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * A Redis Cluster. Scripts are routed by their first key's slot and follow MOVED/ASK redirects.
 * Where the servers know sharded pub/sub (Redis 7+) unlock channels are sharded, as Redisson's are:
 * SSUBSCRIBE is routed to the node serving the channel's slot, and the scripts SPUBLISH there.
 * Otherwise plain PUBLISH reaches subscribers on every node, so one pub/sub connection suffices.
 * Which of the two is learned as the command connection opens, on the thread that opens it: the
 * scripts are built on Redis I/O threads too, which must never wait for a reply.
 */
final class ClusterConnector implements RedisConnector {

    private static final Logger log = LoggerFactory.getLogger(ClusterConnector.class);

    private final RedisClusterClient client;
    private final String description;
    private final LazyConnection<StatefulRedisClusterConnection<String, String>> commands;
    private final LazyConnection<StatefulRedisClusterPubSubConnection<String, String>> pubSub;
    private final List<RedisURI> seeds;
    private final RedisClient nodeClient;
    private final DedicatedConnections synced;
    private final long timeoutMillis;
    private final ConnectionChanges changes;
    private final Runnable onClose;
    private final List<Runnable> topologyCallbacks = new CopyOnWriteArrayList<>();
    private final Disposable topologyEvents;
    /** Whether the servers know sharded pub/sub; {@code null} until one answered definitely. */
    private volatile @Nullable Boolean sharded;
    /** Whether a question about sharded pub/sub is on its way, so that at most one is. */
    private final AtomicBoolean asking = new AtomicBoolean();

    private final ClusterEvictionCheck evictionCheck;

    ClusterConnector(
            RedisClusterClient client,
            List<RedisURI> seeds,
            long timeoutMillis,
            ConnectionChanges changes,
            Runnable onClose) {
        this.client = client;
        this.changes = changes;
        this.onClose = onClose;
        this.timeoutMillis = timeoutMillis;
        this.description =
                "cluster " + seeds.stream().map(RedisConnectors::describe).toList();
        this.seeds = List.copyOf(seeds);
        this.nodeClient = RedisClient.create(client.getResources());
        this.nodeClient.setOptions(ClientOptions.copyOf(client.getOptions()));
        this.synced = new DedicatedConnections(nodeClient);
        this.evictionCheck = new ClusterEvictionCheck(client, this::openCommands);
        this.commands = new LazyConnection<>(
                () -> learnShardedPubSub(evictionCheck.opened(client.connect(StringCodec.UTF8))), description);
        this.pubSub = new LazyConnection<>(() -> client.connectPubSub(StringCodec.UTF8), description);
        // With shared resources this also hears other clients' clusters: callers compare nodes, so a
        // change elsewhere costs them a look, nothing more.
        this.topologyEvents = client.getResources()
                .eventBus()
                .get()
                .filter(ClusterTopologyChangedEvent.class::isInstance)
                .subscribe(event -> topologyCallbacks.forEach(Runnable::run));
    }

    @Override
    public RedisClusterAsyncCommands<String, String> commands() {
        SyncedConnection routed = SyncedConnection.routed();
        return routed != null ? routed.commands() : commands.get().async();
    }

    private @Nullable StatefulRedisClusterConnection<String, String> openCommands() {
        return commands.current();
    }

    @Override
    public boolean commandsReady() {
        return commands.current() != null;
    }

    @Override
    public CompletableFuture<Void> nextConnectionChange() {
        return changes.next();
    }

    @Override
    public StatefulRedisPubSubConnection<String, String> pubSub() {
        return pubSub.get();
    }

    @Override
    public int batchGroup(String key) {
        return SlotHash.getSlot(key);
    }

    @Override
    public SyncedConnection borrowSynced(String key) {
        // A plain connection to the slot's master, opened with the first seed's credentials and
        // options: the script and its WAIT then surely share one connection. A slot that moved
        // meanwhile answers MOVED, which fails this attempt like any other error.
        int slot = SlotHash.getSlot(key);
        RedisClusterNode master = commands.get().getPartitions().getMasterBySlot(slot);
        if (master == null) {
            throw new LockException("No master of " + description + " serves slot " + slot + " of key '" + key + "'");
        }
        RedisURI node = RedisURI.builder(seeds.get(0))
                .withHost(master.getUri().getHost())
                .withPort(master.getUri().getPort())
                .build();
        return synced.borrow(node, RedisConnectors.describe(node));
    }

    /**
     * Asks whether the servers know sharded pub/sub, waiting for the answer: called on the thread
     * that opens the command connection (the engine's connecting thread or a caller's, never a Redis
     * I/O thread: {@link LazyConnection} refuses those), before any other call can use it. Without a
     * definite answer (no reply in time) it is asked again, without waiting, when next needed.
     * @param connection the cluster connection just opened
     * @return the connection
     */
    private StatefulRedisClusterConnection<String, String> learnShardedPubSub(
            StatefulRedisClusterConnection<String, String> connection) {
        if (sharded != null) {
            return connection;
        }
        try {
            ask(connection).get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException ex) {
            log.debug("Cannot ask {} whether it supports sharded pub/sub yet", description, ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return connection;
    }

    /**
     * Sends Redisson's test: servers that answer {@code PUBSUB SHARDNUMSUB} support sharded pub/sub.
     * Only a definite answer is remembered; a connection failure is asked again later. At most one
     * question is on its way: a second completes at once, without an answer.
     * @param connection the cluster connection
     * @return completes once answered; fails when no definite answer came
     */
    private CompletableFuture<Void> ask(StatefulRedisClusterConnection<String, String> connection) {
        if (!asking.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(new IllegalStateException("asked already"));
        }
        CompletableFuture<?> reply;
        try {
            reply = connection.async().pubsubShardNumsub("0").toCompletableFuture();
        } catch (RuntimeException ex) {
            reply = CompletableFuture.failedFuture(ex);
        }
        return reply.handle((ok, failure) -> {
            // Unwrapped here: the shared Failures helper sits in a room above this one.
            Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                    ? failure.getCause()
                    : failure;
            boolean definite = cause == null || cause instanceof RedisCommandExecutionException;
            if (definite) {
                sharded = cause == null;
            }
            asking.set(false);
            if (!definite) {
                throw new CompletionException(cause);
            }
            return null;
        });
    }

    /** @return the answer, or {@code null} when not known yet: then asked again in the background */
    private @Nullable Boolean sharded() {
        Boolean known = sharded;
        if (known == null) {
            StatefulRedisClusterConnection<String, String> connection = commands.current();
            if (connection != null) {
                ask(connection);
            }
        }
        return known;
    }

    @Override
    public boolean shardedPubSub() {
        Boolean known = sharded();
        if (known == null) {
            throw new LockException("Not known yet whether " + description + " supports sharded pub/sub");
        }
        return known;
    }

    @Override
    public boolean publishesSharded() {
        return Boolean.TRUE.equals(sharded());
    }

    @Override
    public @Nullable String shardServer(String channel) {
        StatefulRedisClusterPubSubConnection<String, String> connection = pubSub.current();
        if (connection == null || !Boolean.TRUE.equals(sharded)) {
            return null;
        }
        // The partitions the pub/sub connection routes SSUBSCRIBE by, reloaded after each topology refresh.
        RedisClusterNode master = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(channel));
        return master == null ? null : master.getNodeId();
    }

    @Override
    public void onTopologyChange(Runnable callback) {
        topologyCallbacks.add(callback);
    }

    @Override
    public boolean exactSubscriberCounts() {
        return false;
    }

    @Override
    public EvictionPolicies evictionPolicies() {
        return evictionCheck.policies();
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        topologyEvents.dispose();
        synced.close();
        BoundedClose.shutdown("node client", nodeClient);
        pubSub.close();
        commands.close();
        BoundedClose.shutdown("Redis client", client);
        onClose.run();
    }
}
