package dev.distlock.core.internal.lock;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockListener;
import dev.distlock.core.internal.connection.RedisConnector;
import dev.distlock.core.internal.connection.RedisConnectors;
import dev.distlock.core.internal.pubsub.UnlockSubscriptions;
import dev.distlock.core.internal.script.ScriptExecutor;
import dev.distlock.core.internal.watchdog.LeaseWatchdog;

/**
 * Everything the locks of one client share: identity, connections, scripts, subscriptions, holds
 * and the watchdog. Owned and closed by {@code LockClient}.
 */
public final class LockEngine implements AutoCloseable {

    /** Lease value meaning "renewed by the watchdog". */
    public static final long WATCHDOG = -1;

    private static final Duration CHANNEL_LINGER = Duration.ofSeconds(10);

    /** How long past a call's deadline a wait lets the connection's own timer fail the command first. */
    private static final long TIMER_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final String clientId = UUID.randomUUID().toString();
    private final LockClientOptions options;
    private final RedisConnector connector;
    private final ScriptExecutor scripts;
    private final ScheduledExecutorService scheduler;
    private final UnlockSubscriptions subscriptions;
    private final LocalHolds holds = new LocalHolds();
    private final LeaseWatchdog watchdog;
    private final LockListener listener;
    private final RedisNames names;
    private final UncertainAcquisitions uncertainAcquisitions = new UncertainAcquisitions();
    /**
     * Opens connections for callers that must not block: connecting is the one step of a lock call
     * that cannot be asynchronous with the connectors' lazy opening. One thread at most, and only
     * while there is something to open.
     */
    private final ThreadPoolExecutor connecting;
    /** Pending {@link #delay} timers, completed by {@link #close()}, which stops the scheduler that would. */
    private final java.util.Set<CompletableFuture<Void>> delays = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * Creates the engine; no connection is opened until the first lock call.
     * @param options client options
     */
    public LockEngine(LockClientOptions options) {
        this.options = options;
        this.connector = RedisConnectors.create(options);
        this.names = new RedisNames(!options.clusterNodes().isEmpty());
        this.scripts = new ScriptExecutor(connector::commands, connector::commandFailed);
        this.listener = new SafeLockListener(options.listener());
        this.scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "distlock-scheduler-" + clientId.substring(0, 8));
            thread.setDaemon(true);
            return thread;
        });
        this.connecting = new ThreadPoolExecutor(0, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), runnable -> {
            Thread thread = new Thread(runnable, "distlock-connect-" + clientId.substring(0, 8));
            thread.setDaemon(true);
            return thread;
        });
        this.subscriptions = new UnlockSubscriptions(connector::pubSub, connector::shardedPubSub, scheduler, CHANNEL_LINGER);
        this.watchdog = new LeaseWatchdog(holds, scripts, connector::batchGroup,
                this::leaseLost, options.watchdogTimeout(),
                options.commandTimeout());
        this.watchdog.start(scheduler);
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

    /** @return the naming of companion keys and channels, for this client's topology */
    public RedisNames names() {
        return names;
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
        return clientId + ":" + ownerId;
    }

    /**
     * Returns the Redis key of a lock name.
     * @param name lock name
     * @return prefix + name
     */
    public String key(String name) {
        return options.keyPrefix() + name;
    }

    /** @return whether the client was closed */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Returns the deadline of a public call that starts now: one command timeout away. A call that
     * sends several commands (a retried release, a read of several fields) passes it to each
     * {@link #await(CompletableFuture, String, String, long)}, so the whole call fails within the
     * command timeout rather than within a multiple of it.
     * @return the deadline, in {@link System#nanoTime()} terms
     */
    public long deadline() {
        return System.nanoTime() + options.commandTimeout().toNanos();
    }

    /**
     * Returns whether a deadline leaves time for another command.
     * @param deadline from {@link #deadline()}
     * @return whether it has not passed
     */
    public boolean before(long deadline) {
        return deadline - System.nanoTime() > 0;
    }

    /**
     * Waits for a Redis reply, at most the command timeout. Interrupts are deferred: a release must
     * complete even for an interrupted caller.
     * @param future the pending reply
     * @param lockName lock name for the error message
     * @param action what the call does, e.g. {@code "acquire"}
     * @param <T> reply type
     * @return the reply
     */
    public <T> T await(CompletableFuture<T> future, String lockName, String action) {
        return await(future, lockName, action, deadline());
    }

    /**
     * Waits for a Redis reply until a call's deadline. The connection's own command timeout (the
     * same length, counted from when the command was sent) must fail a command before this wait
     * gives up on it, so this wait allows a short slack past the deadline: a caller that gave up
     * first could be overtaken by a late reply of a command that did run, after it stopped
     * tracking that command as uncertain.
     * @param future the pending reply
     * @param lockName lock name for the error message
     * @param action what the call does, e.g. {@code "acquire"}
     * @param deadline from {@link #deadline()}
     * @param <T> reply type
     * @return the reply
     */
    public <T> T await(CompletableFuture<T> future, String lockName, String action, long deadline) {
        ensureOpen(lockName);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get(Math.max(0, deadline + TIMER_SLACK_NANOS - System.nanoTime()), TimeUnit.NANOSECONDS);
                }
                catch (InterruptedException ex) {
                    interrupted = true;
                }
                catch (ExecutionException ex) {
                    Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
                    // A call cut short by close() reports the close, not the connection's death throes.
                    failIfClosed(lockName, cause);
                    throw new LockException("Cannot " + action + " lock '" + lockName + "' on " + connector.describe()
                            + ": " + cause.getMessage(), cause);
                }
                catch (TimeoutException ex) {
                    if (!future.cancel(false)) {
                        // The reply won the race against the deadline: it was delivered, so use it.
                        continue;
                    }
                    failIfClosed(lockName, ex);
                    throw new LockException("Cannot " + action + " lock '" + lockName + "': Redis at "
                            + connector.describe() + " did not answer within " + options.commandTimeout(), ex);
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Starts a Redis call, turning a synchronous failure (e.g. cannot connect) into a failed future.
     * When the command connection is not open yet (first use, or reopened after a demotion), the
     * call starts on the connecting thread instead: calls are also started from Redis I/O threads
     * (the next step of an acquisition), where opening a connection would wait for that very thread.
     * @param call the call
     * @param <T> reply type
     * @return the pending reply
     */
    public <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> call) {
        return whenConnected(false, call);
    }

    private static <T> CompletableFuture<T> invoke(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * Runs a step that sends commands once the connections it needs are open: at once when they
     * are, else on the connecting thread, so that a caller that must not block never opens one.
     * @param pubSub whether the step also needs the pub/sub connection
     * @param step the step
     * @param <T> reply type
     * @return the step's reply
     */
    public <T> CompletableFuture<T> whenConnected(boolean pubSub, Supplier<CompletableFuture<T>> step) {
        if (connector.commandsReady() && (!pubSub || subscriptions.connected())) {
            return invoke(step);
        }
        return offload(step);
    }

    /**
     * Runs a step that may block (it opens connections) on the connecting thread.
     * @param step the step
     * @param <T> reply type
     * @return the step's reply
     */
    public <T> CompletableFuture<T> offload(Supplier<CompletableFuture<T>> step) {
        try {
            return CompletableFuture.supplyAsync(() -> invoke(step), connecting).thenCompose(reply -> reply);
        }
        catch (RejectedExecutionException ex) {
            return CompletableFuture.failedFuture(closedException("(client)", ex));
        }
    }

    /**
     * Completes after a delay, on the scheduler; at once if the client is closing.
     * @param millis the delay
     * @return completes when the time is up
     */
    public CompletableFuture<Void> delay(long millis) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        delays.add(done);
        try {
            ScheduledFuture<?> task = scheduler.schedule(() -> done.complete(null), Math.max(0, millis),
                    TimeUnit.MILLISECONDS);
            done.whenComplete((ignored, failure) -> {
                task.cancel(false);
                delays.remove(done);
            });
        }
        catch (RejectedExecutionException ex) {
            delays.remove(done);
            done.complete(null);
        }
        if (closed) {
            done.complete(null);
        }
        return done;
    }

    /**
     * The non-blocking form of {@link #await(CompletableFuture, String, String, long)}: the reply,
     * or a {@link LockException} saying what failed, by the same deadline and with the same slack.
     * @param future the pending reply
     * @param lockName lock name for the error message
     * @param action what the call does, e.g. {@code "acquire"}
     * @param deadline from {@link #deadline()}
     * @param <T> reply type
     * @return the reply
     */
    public <T> CompletableFuture<T> within(CompletableFuture<T> future, String lockName, String action, long deadline) {
        CompletableFuture<T> result = new CompletableFuture<>();
        ScheduledFuture<?> timer;
        try {
            timer = scheduler.schedule(() -> {
                if (future.cancel(false)) {
                    result.completeExceptionally(closed ? closedException(lockName, null)
                            : new LockException("Cannot " + action + " lock '" + lockName + "': Redis at "
                                    + connector.describe() + " did not answer within " + options.commandTimeout()));
                }
            }, Math.max(0, deadline + TIMER_SLACK_NANOS - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        catch (RejectedExecutionException ex) {
            // Closing: the connections close too, which fails the command.
            timer = null;
        }
        ScheduledFuture<?> deadlineTimer = timer;
        future.whenComplete((reply, failure) -> {
            if (deadlineTimer != null) {
                deadlineTimer.cancel(false);
            }
            if (failure == null) {
                result.complete(reply);
            }
            else if (!future.isCancelled()) {
                result.completeExceptionally(failed(failure, lockName, action));
            }
        });
        return result;
    }

    /**
     * Turns the failure of a Redis call into the {@link LockException} callers see.
     * @param failure what the call failed with
     * @param lockName lock name for the message
     * @param action what the call does
     * @return the exception to report
     */
    public LockException failed(Throwable failure, String lockName, String action) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        if (closed) {
            return closedException(lockName, cause);
        }
        return new LockException("Cannot " + action + " lock '" + lockName + "' on " + connector.describe() + ": "
                + cause.getMessage(), cause);
    }

    /**
     * Returns the exception of a call made on (or cut short by) a closed client.
     * @param lockName lock name for the message
     * @param cause what the close caused, or {@code null}
     * @return the exception
     */
    public LockException closedException(String lockName, @Nullable Throwable cause) {
        return new LockException("Lock client " + clientId + " is closed; cannot use lock '" + lockName + "'", cause);
    }

    /**
     * Throws if the client was closed.
     * @param lockName lock name for the message
     * @throws LockException if closed
     */
    public void ensureOpen(String lockName) {
        failIfClosed(lockName, null);
    }

    /**
     * Throws the "client closed" {@link LockException} if the client was closed, so that a failure
     * caused by {@link #close()} (a shut-down scheduler, a closed connection or subscription
     * registry) reaches the caller as the documented exception rather than as its symptom.
     * @param lockName lock name for the message
     * @param cause the failure the close caused, or {@code null}
     * @throws LockException if closed
     */
    public void failIfClosed(String lockName, @Nullable Throwable cause) {
        if (closed) {
            throw closedException(lockName, cause);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        watchdog.stop();
        subscriptions.close();
        holds.clear();
        uncertainAcquisitions.clear();
        scheduler.shutdownNow();
        connecting.shutdownNow();
        java.util.List.copyOf(delays).forEach(delay -> delay.complete(null));
        connector.close();
    }
}
