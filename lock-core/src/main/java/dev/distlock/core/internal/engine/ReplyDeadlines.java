package dev.distlock.core.internal.engine;

import dev.distlock.core.LockException;
import dev.distlock.core.internal.connection.RedisConnector;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * Bounds the waits for Redis replies: a public call fails within one command timeout, however
 * many commands it sends. Owned by the {@link LockEngine}. A blocking caller waits with a timeout;
 * a non-blocking one is failed by the client's {@link DeadlineSweep}, so no timer is set per command.
 */
public final class ReplyDeadlines {

    /** How long past a call's deadline a wait lets the connection's own timer fail the command first. */
    private static final long TIMER_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final Duration commandTimeout;
    private final RedisConnector connector;
    private final DeadlineSweep sweep;
    private final RedisCalls calls;

    ReplyDeadlines(
            Duration commandTimeout, RedisConnector connector, ScheduledExecutorService scheduler, RedisCalls calls) {
        this.commandTimeout = commandTimeout;
        this.connector = connector;
        this.sweep = new DeadlineSweep(scheduler, DeadlineSweep.periodFor(commandTimeout.toNanos()));
        this.calls = calls;
    }

    /**
     * Returns the deadline of a public call that starts now: one command timeout away. A call that
     * sends several commands (a retried release, a read of several fields) passes it to each
     * {@link #await(CompletableFuture, String, String, long)}, so the whole call fails within the
     * command timeout rather than within a multiple of it.
     * @return the deadline, in {@link System#nanoTime()} terms
     */
    public long deadline() {
        return System.nanoTime() + commandTimeout.toNanos();
    }

    /**
     * Waits until the command connection is open, then returns the deadline of a blocking call that
     * starts now. As for the locks' acquire and release calls, the command timeout bounds Redis'
     * answer, not the opening of the connection, which has its own timeout: a client's first call
     * (a Cluster client learns the topology and opens a connection per node) must not fail as "did
     * not answer" while Redis is up. While Redis cannot be reached, waits for it one command timeout.
     * Interrupts are deferred, as in {@link #await(CompletableFuture, String, String, long)}.
     * @param lockName lock name for the error message
     * @param action what the call does, e.g. {@code "inspect"}
     * @return the deadline, in {@link System#nanoTime()} terms
     * @throws LockException when the client cannot connect
     */
    public long deadlineOnceConnected(String lockName, String action) {
        CompletableFuture<Void> connected = calls.connected(lockName, action);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    connected.get();
                    return deadline();
                } catch (InterruptedException ex) {
                    interrupted = true;
                } catch (ExecutionException ex) {
                    Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
                    calls.failIfClosed(lockName, cause);
                    throw cause instanceof LockException lockException
                            ? lockException
                            : new LockException(
                                    "Cannot " + action + " lock '" + lockName + "' on " + connector.describe() + ": "
                                            + cause.getMessage(),
                                    cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
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
        calls.ensureOpen(lockName);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get(
                            Math.max(0, deadline + TIMER_SLACK_NANOS - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException ex) {
                    interrupted = true;
                } catch (ExecutionException ex) {
                    Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
                    // A call cut short by close() reports the close, not the connection's death throes.
                    calls.failIfClosed(lockName, cause);
                    throw new LockException(
                            "Cannot " + action + " lock '" + lockName + "' on " + connector.describe() + ": "
                                    + cause.getMessage(),
                            cause);
                } catch (TimeoutException ex) {
                    if (!future.cancel(false)) {
                        // The reply won the race against the deadline: it was delivered, so use it.
                        continue;
                    }
                    calls.failIfClosed(lockName, ex);
                    throw new LockException(
                            "Cannot " + action + " lock '" + lockName + "': Redis at " + connector.describe()
                                    + " did not answer within " + commandTimeout,
                            ex);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits on the calling thread for the reply of a command it sent itself, until the deadline with
     * the slack {@link #within} allows: a blocking caller parks on the reply's own future instead of a
     * chain of stages, and no sweep watches it. A reply that did not come in time is cancelled, unless
     * it was answered first, when that answer is used. Interrupts are deferred: the reply, not the
     * interrupt, says what the command did; the flag is restored afterwards.
     * @param reply the pending reply, as the command's own future (not mapped)
     * @param lockName lock name for the error message
     * @param action what the call does, e.g. {@code "acquire"}
     * @param deadline from {@link #deadline()}
     * @param <T> reply type
     * @return {@code reply} once it is done; a failed future with {@link #within}'s failure when the
     *     deadline passed first
     */
    public <T> CompletableFuture<T> awaitOnThisThread(
            CompletableFuture<T> reply, String lockName, String action, long deadline) {
        long expiresAt = deadline + TIMER_SLACK_NANOS;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    reply.get(Math.max(0, expiresAt - System.nanoTime()), TimeUnit.NANOSECONDS);
                    return reply;
                } catch (InterruptedException ex) {
                    interrupted = true;
                } catch (ExecutionException | CancellationException ex) {
                    return reply;
                } catch (TimeoutException ex) {
                    if (reply.cancel(false)) {
                        return CompletableFuture.failedFuture(notAnswered(lockName, action));
                    }
                    // The reply won the race against the deadline: it was delivered, so use it.
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Returns what a call reports when Redis did not answer by its deadline, as {@link #within} does.
     * @param lockName lock name for the message
     * @param action what the call does
     * @return the failure
     */
    public LockException notAnswered(String lockName, String action) {
        return calls.isClosed()
                ? calls.closedException(lockName, null)
                : new LockException("Cannot " + action + " lock '" + lockName + "': Redis at " + connector.describe()
                        + " did not answer within " + commandTimeout);
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
        ReplyWithin<T> result = new ReplyWithin<>(future, lockName, action, deadline + TIMER_SLACK_NANOS);
        future.whenComplete(result);
        if (!result.isDone()) {
            sweep.watch(result);
        }
        return result;
    }

    /**
     * A reply as its caller sees it: the reply, the reply's failure as a {@link LockException}, or,
     * once the deadline passed (and the connection's own timer did not fail it first), the reply
     * cancelled and a {@link LockException} saying Redis did not answer in time.
     */
    private final class ReplyWithin<T> extends CompletableFuture<T>
            implements DeadlineSweep.Pending, BiConsumer<T, Throwable> {

        private final CompletableFuture<T> reply;
        private final String lockName;
        private final String action;
        private final long expiresAt;

        ReplyWithin(CompletableFuture<T> reply, String lockName, String action, long expiresAt) {
            this.reply = reply;
            this.lockName = lockName;
            this.action = action;
            this.expiresAt = expiresAt;
        }

        @Override
        public void accept(T value, Throwable failure) {
            if (failure == null) {
                complete(value);
            } else if (!reply.isCancelled()) {
                completeExceptionally(calls.failed(failure, lockName, action));
            }
        }

        @Override
        public long expiresAt() {
            return expiresAt;
        }

        @Override
        public void expire() {
            if (reply.cancel(false)) {
                completeExceptionally(notAnswered(lockName, action));
            }
        }
    }
}
