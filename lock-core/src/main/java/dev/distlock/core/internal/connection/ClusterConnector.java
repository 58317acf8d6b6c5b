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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

/**
 * A Redis Cluster. Scripts are routed by their first key's slot and follow MOVED/ASK redirects.
 * Where the servers know sharded pub/sub (Redis 7+) unlock channels are sharded, as Redisson's are:
 * SSUBSCRIBE is routed to the node serving the channel's slot, and the scripts SPUBLISH there.
 * Otherwise plain PUBLISH reaches subscribers on every node, so one pub/sub connection suffices.
 */
final class ClusterConnector implements RedisConnector {

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
    private volatile @Nullable Boolean sharded;
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
        this.commands = new LazyConnection<>(() -> evictionCheck.opened(client.connect(StringCodec.UTF8)), description);
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

    @Override
    public boolean shardedPubSub() {
        Boolean known = sharded;
        if (known != null) {
            return known;
        }
        // Redisson's test: servers that answer PUBSUB SHARDNUMSUB support sharded pub/sub. Only a
        // definite answer is remembered; a connection failure is asked again next time.
        boolean supported;
        try {
            commands().pubsubShardNumsub("0").get(timeoutMillis, TimeUnit.MILLISECONDS);
            supported = true;
        } catch (ExecutionException ex) {
            if (!(ex.getCause() instanceof RedisCommandExecutionException)) {
                throw new LockException(
                        "Cannot ask " + description + " whether it supports sharded pub/sub: "
                                + ex.getCause().getMessage(),
                        ex.getCause());
            }
            supported = false;
        } catch (TimeoutException ex) {
            throw new LockException(
                    "Cannot ask " + description + " whether it supports sharded pub/sub: no reply within "
                            + timeoutMillis + " ms",
                    ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockException(
                    "Interrupted while asking " + description + " whether it supports sharded pub/sub", ex);
        }
        sharded = supported;
        return supported;
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
        nodeClient.shutdown();
        pubSub.close();
        commands.close();
        client.shutdown();
        onClose.run();
    }
}
