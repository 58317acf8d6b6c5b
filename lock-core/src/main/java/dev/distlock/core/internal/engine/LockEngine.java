package dev.distlock.core.internal.engine;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockListener;
import dev.distlock.core.internal.connection.RedisConnector;
import dev.distlock.core.internal.connection.RedisConnectors;
import dev.distlock.core.internal.hold.Hold;
import dev.distlock.core.internal.hold.LocalHolds;
import dev.distlock.core.internal.hold.UncertainAcquisitions;
import dev.distlock.core.internal.layout.OwnerFields;
import dev.distlock.core.internal.layout.RedissonLayout;
import dev.distlock.core.internal.pubsub.UnlockSubscriptions;
import dev.distlock.core.internal.script.ScriptExecutor;
import dev.distlock.core.internal.watchdog.LeaseWatchdog;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Everything the locks of one client share: identity, connections, scripts, subscriptions, holds
 * and the watchdog. Owned and closed by {@code LockClient}.
 */
public final class LockEngine implements AutoCloseable {

    /** Lease value meaning "renewed by the watchdog". */
    public static final long WATCHDOG = Hold.WATCHDOG;

    private static final Duration CHANNEL_LINGER = Duration.ofSeconds(10);

    private final String clientId = UUID.randomUUID().toString();
    private final OwnerFields ownerFields = new OwnerFields(clientId);
    private final String listingSlackText;
    private final java.util.concurrent.atomic.AtomicLong requests = new java.util.concurrent.atomic.AtomicLong();
    private final LockClientOptions options;
    private final RedisConnector connector;
    private final ScriptExecutor scripts;
    private final ScheduledExecutorService scheduler;
    private final UnlockSubscriptions subscriptions;
    private final LocalHolds holds = new LocalHolds();
    private final LeaseWatchdog watchdog;
    private final LockListener listener;
    private final boolean cluster;
    private final UncertainAcquisitions uncertainAcquisitions = new UncertainAcquisitions();
    private final LocalWaiterLines waiterLines = new LocalWaiterLines();
    private final OwnerWaitEntries waitEntries = new OwnerWaitEntries();
    private final RedisCalls calls;
    private final ReplyDeadlines replies;

    /**
     * Creates the engine; no connection is opened until the first lock call.
     * @param options client options
     */
    public LockEngine(LockClientOptions options) {
        this.options = options;
        this.listingSlackText =
                Long.toString(1000 + 2 * options.commandTimeout().toMillis());
        this.connector = RedisConnectors.create(options);
        this.cluster = !options.clusterNodes().isEmpty();
        this.scripts = new ScriptExecutor(connector::commands, connector::commandFailed);
        this.listener = SafeLockListener.of(options.listeners());
        this.scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "distlock-scheduler-" + clientId.substring(0, 8));
            thread.setDaemon(true);
            return thread;
        });
        this.subscriptions = new UnlockSubscriptions(
                connector::pubSub, connector::shardedPubSub, connector::shardServer, scheduler, CHANNEL_LINGER);
        connector.onTopologyChange(subscriptions::topologyChanged);
        this.calls = new RedisCalls(clientId, connector, subscriptions::connected, scheduler, options.commandTimeout());
        this.replies = new ReplyDeadlines(options.commandTimeout(), connector, scheduler, calls);
        this.watchdog = new LeaseWatchdog(
                holds,
                scripts,
                connector::batchGroup,
                this::leaseLost,
                options.watchdogTimeout(),
                options.commandTimeout(),
                connector::nextConnectionChange);
        this.watchdog.start(scheduler);
    }

    /**
     * Returns a new unlock request number. The release scripts name the request's latch from it and
     * from the client id that starts the owner field ({@code <client id>:<n>}), unique across clients
     * while a latch lives. Not {@link UUID#randomUUID()}: its secure random source reads a device file,
     * a blocking call on the non-blocking threads that unlock asynchronously.
     * @return the request number
     */
    public String newRequestId() {
        return Long.toString(requests.incrementAndGet());
    }

    /**
     * Returns how long a reentrant lock's listing of this client as waiting outlives the holder's
     * lease: long enough for the next attempt.
     * @return the slack in ms, as the script receives it
     */
    public String listingSlackText() {
        return listingSlackText;
    }

    /** @return this client's UUID */
    public String clientId() {
        return clientId;
    }

    /** @return the options */
    public LockClientOptions options() {
        return options;
    }

    /** @return the connections */
    public RedisConnector connector() {
        return connector;
    }

    /**
     * Returns the Redis layout of a lock key: every key, channel and field of every kind.
     * @param key the lock key
     * @return the layout, every key and channel of a lock in one slot on a cluster
     */
    public RedissonLayout layout(String key) {
        return RedissonLayout.of(key, cluster, ownerFields);
    }

    /** @return the script runner */
    public ScriptExecutor scripts() {
        return scripts;
    }

    /** @return the unlock channel subscriptions */
    public UnlockSubscriptions subscriptions() {
        return subscriptions;
    }

    /** @return the holds of this client */
    public LocalHolds holds() {
        return holds;
    }

    /** @return the watchdog */
    public LeaseWatchdog watchdog() {
        return watchdog;
    }

    /** @return the listener, wrapped so that it never throws */
    public LockListener listener() {
        return listener;
    }

    /**
     * Reports a hold that was lost while its owner believed it held it, to the client's listener
     * and to the listeners of the lock views it was taken through. Call it once, after forgetting
     * the hold.
     * @param hold the lost hold
     */
    public void leaseLost(Hold hold) {
        listener.onLeaseLost(hold.lockName(), hold.ownerId());
        hold.listeners().forEach(viewListener -> viewListener.onLeaseLost(hold.lockName(), hold.ownerId()));
    }

    /**
     * Returns the acquisitions (lock key and owner field) whose last attempt got no reply its
     * caller saw: the script may have run, so the next attempt must adopt a hold it finds rather
     * than add another.
     * @return the bookkeeping
     */
    public UncertainAcquisitions uncertainAcquisitions() {
        return uncertainAcquisitions;
    }

    /**
     * Returns how many acquisitions of this client wait for a wake-up: parked on a subscribed
     * channel, or waiting in a lock's local line for their turn. For tests and diagnostics.
     * @return waiting acquisitions
     */
    public int parkedWaiters() {
        return subscriptions.parkedWaiters() + waiterLines.queued();
    }

    /** @return the lines in which this client's waiters for a lock wait behind the one that tries */
    public LocalWaiterLines waiterLines() {
        return waiterLines;
    }

    /** @return the calls of this client that share an owner's wait entry in Redis (queue place, write claim) */
    public OwnerWaitEntries waitEntries() {
        return waitEntries;
    }

    /** @return the scheduler shared by the watchdog and the subscriptions */
    public ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /** @return the watchdog lease in ms */
    public long watchdogMillis() {
        return options.watchdogTimeout().toMillis();
    }

    /** @return how long an unlock latch remembers its outcome: long enough for one retry */
    public long unlockLatchMillis() {
        return Math.max(1000, options.commandTimeout().toMillis() * 3);
    }

    /**
     * Returns the owner field of an owner: {@code <clientId>:<ownerId>}.
     * @param ownerId thread id or explicit owner id
     * @return the owner field
     */
    public String ownerField(long ownerId) {
        return ownerFields.field(ownerId);
    }

    /**
     * Returns the Redis key of a lock name.
     * @param name lock name
     * @return prefix + name
     */
    public String key(String name) {
        String prefix = options.keyPrefix();
        // Without a prefix the name is the key: no copy for every lock object.
        return prefix.isEmpty() ? name : prefix + name;
    }

    /** @return whether the client was closed */
    public boolean isClosed() {
        return calls.isClosed();
    }

    /** @return how calls are started, and what they report once the client is closed */
    public RedisCalls calls() {
        return calls;
    }

    /** @return the bounds of the waits for replies */
    public ReplyDeadlines replies() {
        return replies;
    }

    @Override
    public void close() {
        if (calls.isClosed()) {
            return;
        }
        calls.markClosed();
        waiterLines.close();
        watchdog.stop();
        subscriptions.close();
        holds.clear();
        uncertainAcquisitions.clear();
        scheduler.shutdownNow();
        calls.shutdown();
        connector.close();
    }
}
