package dev.distlock.core.internal.engine;

import dev.distlock.core.LockException;
import dev.distlock.core.internal.Failures;
import dev.distlock.core.internal.connection.RedisConnector;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * How the locks of one client start Redis calls, and what a call reports once the client is
 * closed. Owned by the {@link LockEngine}; {@link ReplyDeadlines} bounds the waits for replies.
 */
public final class RedisCalls {

    private final String clientId;
    private final RedisConnector connector;
    private final BooleanSupplier pubSubConnected;
    private final long commandTimeoutNanos;
    private final ConnectingThread connecting;
    private final CallDelays delays;

    private volatile boolean closed;

    RedisCalls(
            String clientId,
            RedisConnector connector,
            BooleanSupplier pubSubConnected,
            ScheduledExecutorService scheduler,
            Duration commandTimeout) {
        this.commandTimeoutNanos = commandTimeout.toNanos();
        this.clientId = clientId;
        this.connector = connector;
        this.pubSubConnected = pubSubConnected;
        this.connecting = new ConnectingThread(clientId);
        this.delays = new CallDelays(scheduler);
    }

    /** @return whether the client was closed */
    public boolean isClosed() {
        return closed;
    }

    /** Marks the client closed: from now on every call reports the close. */
    void markClosed() {
        closed = true;
    }

    /** Stops the connecting thread and ends pending delays; after the scheduler was stopped. */
    void shutdown() {
        connecting.drain();
        delays.endAll();
    }

    /**
     * Starts a Redis call that may wait for the connection one command timeout from now; see
     * {@link #call(Supplier, long, BooleanSupplier)}.
     * @param call the call
     * @param <T> reply type
     * @return the pending reply
     */
    public <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> call) {
        return call(call, System.nanoTime() + commandTimeoutNanos, () -> true);
    }

    /**
     * Starts a Redis call, turning a synchronous failure (e.g. cannot connect) into a failed future.
     * When the command connection is not open yet (first use, or reopened after a demotion), the
     * call starts on the connecting thread instead: calls are also started from Redis I/O threads
     * (the next step of an acquisition), where opening a connection would wait for that very thread.
     * A call refused unwritten because the client is not connected (it reconnects by itself) is
     * sent again once the connection is back, until {@code writeBy}; after that it fails with a
     * {@link LockException} saying how long Redis was unreachable. It is never written once
     * {@code wanted} says its caller gave up, nor once the returned future was cancelled.
     * @param call the call; sent again only if refused unwritten
     * @param writeBy until when it may wait for the connection, in {@link System#nanoTime()} terms
     * @param wanted whether its caller still waits for it
     * @param <T> reply type
     * @return the pending reply; cancelling it cancels the call's reply unless that was answered
     */
    public <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> call, long writeBy, BooleanSupplier wanted) {
        return new UnwrittenRetry<>(this, call, writeBy, wanted, System.nanoTime()).start();
    }

    /** @return completes when a connection may have become usable again; see the connector */
    CompletableFuture<Void> nextConnectionChange() {
        return connector.nextConnectionChange();
    }

    private static <T> CompletableFuture<T> invoke(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException ex) {
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
        if (connector.commandsReady() && (!pubSub || pubSubConnected.getAsBoolean())) {
            return invoke(step);
        }
        return offload(step);
    }

    /**
     * Completes once the command connection is open, opening it on the connecting thread if needed
     * (in a cluster, opening it also learns the kind of pub/sub, which nothing else may wait for).
     * A call starts its deadline after this: connecting is bounded by the connect timeout, not by
     * the command timeout. While Redis cannot be reached, tries again until one command timeout
     * from now.
     * @param lockName lock name for the error message
     * @param action what the call does, e.g. {@code "acquire"}
     * @return completes when connected; fails with a {@link LockException} when it cannot connect
     */
    public CompletableFuture<Void> connected(String lockName, String action) {
        return connected(lockName, action, System.nanoTime() + commandTimeoutNanos, () -> true);
    }

    /**
     * As {@link #connected(String, String)}, trying to connect until {@code connectBy}.
     * @param lockName lock name for the error message
     * @param action what the call does, e.g. {@code "acquire"}
     * @param connectBy until when to try, in {@link System#nanoTime()} terms
     * @param wanted whether the caller still waits
     * @return completes when connected; fails with a {@link LockException} when it cannot connect
     */
    public CompletableFuture<Void> connected(String lockName, String action, long connectBy, BooleanSupplier wanted) {
        if (connector.commandsReady()) {
            return CompletableFuture.completedFuture(null);
        }
        return call(
                        () -> {
                            connector.commands();
                            return CompletableFuture.<Void>completedFuture(null);
                        },
                        connectBy,
                        wanted)
                .handle((ok, failure) -> {
                    if (failure != null) {
                        throw failed(failure, lockName, action);
                    }
                    return ok;
                });
    }

    /**
     * Runs a step that may block (it opens connections) on the connecting thread.
     * @param step the step
     * @param <T> reply type
     * @return the step's reply
     */
    public <T> CompletableFuture<T> offload(Supplier<CompletableFuture<T>> step) {
        CompletableFuture<T> result = new CompletableFuture<>();
        connecting.run(() -> {
            if (closed) {
                result.completeExceptionally(closedException("(client)", null));
                return;
            }
            invoke(step).whenComplete((reply, failure) -> {
                if (failure != null) {
                    result.completeExceptionally(failure);
                } else {
                    result.complete(reply);
                }
            });
        });
        return result;
    }

    /**
     * Completes after a delay, on the scheduler; at once if the client is closing.
     * @param millis the delay
     * @return completes when the time is up
     */
    public CompletableFuture<Void> delay(long millis) {
        CompletableFuture<Void> done = delays.delay(millis);
        if (closed) {
            done.complete(null);
        }
        return done;
    }

    /**
     * Turns the failure of a Redis call into the {@link LockException} callers see.
     * @param failure what the call failed with
     * @param lockName lock name for the message
     * @param action what the call does
     * @return the exception to report
     */
    public LockException failed(Throwable failure, String lockName, String action) {
        Throwable cause = Failures.cause(failure);
        if (closed) {
            return closedException(lockName, cause);
        }
        return new LockException(
                "Cannot " + action + " lock '" + lockName + "' on " + connector.describe() + ": " + cause.getMessage(),
                cause);
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
     * caused by {@code close()} (a shut-down scheduler, a closed connection or subscription
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
}
