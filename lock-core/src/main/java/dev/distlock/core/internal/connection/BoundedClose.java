package dev.distlock.core.internal.connection;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.resource.ClientResources;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits a bounded time for a part of the client to close. Lettuce closes a connection, and Netty
 * stops a thread, only on the Redis I/O thread and between two tasks: a task that never returns
 * (a listener that blocks the I/O thread it is told on) would hold {@code close()} for good, and
 * an application's shutdown with it.
 */
final class BoundedClose {

    private static final Logger log = LoggerFactory.getLogger(BoundedClose.class);

    /** What Netty gives the threads to finish what they run: the allowance of Lettuce's own shutdown(). */
    private static final long THREADS_SECONDS = 2;

    /** How long close() waits for each part: the threads' allowance, and a margin. */
    static final long WAIT_SECONDS = THREADS_SECONDS + 3;

    private BoundedClose() {}

    /**
     * Shuts a Lettuce client down: its connections, and its resources if it made them.
     * @param what the client, as the warning names it
     * @param client the client
     */
    static void shutdown(String what, AbstractRedisClient client) {
        await(what, client.shutdownAsync(0, THREADS_SECONDS, TimeUnit.SECONDS));
    }

    /**
     * Shuts down resources this client made itself (their I/O threads and timers).
     * @param what the resources, as the warning names them
     * @param resources the resources
     */
    static void shutdown(String what, ClientResources resources) {
        CompletableFuture<Boolean> stopped = new CompletableFuture<>();
        resources.shutdown(0, THREADS_SECONDS, TimeUnit.SECONDS).addListener(done -> stopped.complete(Boolean.TRUE));
        await(what, stopped);
    }

    /**
     * @param what the part, as the warning names it
     * @param closing its close, under way
     */
    static void await(String what, CompletionStage<?> closing) {
        CompletableFuture<?> done = closing.toCompletableFuture();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    done.get(WAIT_SECONDS, TimeUnit.SECONDS);
                    return;
                } catch (InterruptedException ex) {
                    // Closing goes on; the interrupt is the caller's to see afterwards.
                    interrupted = true;
                } catch (ExecutionException ex) {
                    log.debug("Closing the {} failed; it is closed as far as this client goes", what, ex);
                    return;
                } catch (TimeoutException ex) {
                    log.warn(
                            "The {} did not close within {} s: a Redis I/O thread is still busy, most likely in a "
                                    + "LockListener or a callback that blocks the thread it runs on. close() goes on "
                                    + "and leaves it to close when that call returns.",
                            what,
                            WAIT_SECONDS);
                    return;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
