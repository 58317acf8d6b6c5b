package dev.distlock.core.faults;

import static org.awaitility.Awaitility.await;

import dev.distlock.core.RedisLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits until a client has seen the connection to a stopped server drop. A call written before the
 * client notices fails at once as in flight ("Connection disconnected"), which on a loaded machine
 * can happen well after the server died; scenarios about calls made during an outage start after
 * this.
 */
final class DropSeen {

    private DropSeen() {}

    /**
     * Returns once a call on the probe's connection waits for the connection (or, after a failover,
     * already runs on the new master) instead of failing as in flight.
     * @param probe a lock on the connection the scenario is about (same server, or same Cluster slot)
     */
    static void awaitSeenBy(RedisLock probe) {
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            long owner = RedisLock.newOwnerId();
            CompletableFuture<Boolean> call =
                    probe.tryLockAsync(0, 30, TimeUnit.SECONDS, owner).toCompletableFuture();
            try {
                if (call.get(300, TimeUnit.MILLISECONDS)) {
                    probe.unlock(owner);
                }
                return true;
            } catch (TimeoutException waitingForTheConnection) {
                call.cancel(false);
                return true;
            } catch (ExecutionException failedInFlight) {
                return false;
            }
        });
    }
}
