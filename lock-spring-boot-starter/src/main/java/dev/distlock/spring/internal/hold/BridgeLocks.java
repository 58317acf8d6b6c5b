package dev.distlock.spring.internal.hold;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.LeaseLostPolicy;
import dev.distlock.spring.LockType;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds taken for the ShedLock bridge through the starter's {@link LockExecutor}, so that they are
 * measured, traced and listed like the annotation's. A bridge is built from a {@link LockClient}
 * alone; the executor the starter built around that client is found here on first use, and a
 * client the starter did not configure gets a plain executor that reports to no observer.
 */
public final class BridgeLocks {

    private static final Logger logger = LoggerFactory.getLogger(BridgeLocks.class);

    /** Weak both ways: an executor holds its client, and neither may outlive the application. */
    private static final Map<LockClient, WeakReference<LockExecutor>> executors =
            Collections.synchronizedMap(new WeakHashMap<>());

    /**
     * How much longer than the time left Redis keeps a hold whose release is deferred: the local
     * timer releases it first, so the release is not mistaken for a lost lease; after a crash the
     * lock lapses this much later.
     */
    static final Duration DEFERRED_LEASE_SLACK = Duration.ofSeconds(1);

    private static volatile @Nullable ScheduledExecutorService timer;

    private final LockClient client;
    private volatile @Nullable LockExecutor executor;

    /**
     * Creates the bridge's access to holds.
     * @param client the lock client
     */
    public BridgeLocks(LockClient client) {
        this.client = Objects.requireNonNull(client, "'client' must not be null");
    }

    static void register(LockClient client, LockExecutor executor) {
        executors.put(client, new WeakReference<>(executor));
    }

    /**
     * Returns the executor the starter built around a client.
     * @param client the client
     * @return the executor, or {@code null} when the starter built none (yet)
     */
    static @Nullable LockExecutor registered(LockClient client) {
        WeakReference<LockExecutor> registered = executors.get(client);
        return registered != null ? registered.get() : null;
    }

    private LockExecutor executor() {
        LockExecutor current = executor;
        if (current == null) {
            synchronized (this) {
                current = executor;
                if (current == null) {
                    current = registered(client);
                    if (current == null) {
                        current = new LockExecutor(
                                client, List.of(), new HoldIndex(LeaseLostPolicy.LOG), () -> LockObserver.NO_OP, null);
                    }
                    executor = current;
                }
            }
        }
        return current;
    }

    /**
     * Tries once to take a reentrant lock for a new owner, with a fixed lease.
     * @param template the name in metrics
     * @param name the lock name
     * @param lease the lease, positive
     * @param description what runs under the lock, for messages
     * @return the hold, or {@code null} when the lock is taken
     */
    public @Nullable BridgeHold tryAcquire(String template, String name, Duration lease, String description) {
        LockRequest request =
                new LockRequest(template, List.of(name), LockType.REENTRANT, false, Duration.ZERO, lease, description);
        LockExecutor current = executor();
        try {
            Hold hold = current.tryAcquire(request, RedisLock.newOwnerId(), null);
            return hold == null ? null : new BridgeHold(current, hold);
        } catch (InterruptedException ex) {
            // A try without a wait was interrupted: report the lock as not taken, keep the flag.
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static ScheduledExecutorService timer() {
        ScheduledExecutorService current = timer;
        if (current == null) {
            synchronized (BridgeLocks.class) {
                current = timer;
                if (current == null) {
                    current = Executors.newSingleThreadScheduledExecutor(task -> {
                        Thread thread = new Thread(task, "distlock-deferred-release");
                        thread.setDaemon(true);
                        return thread;
                    });
                    timer = current;
                }
            }
        }
        return current;
    }

    /** One hold taken through {@link #tryAcquire}. */
    public static final class BridgeHold {

        private final LockExecutor executor;
        private final Hold hold;

        BridgeHold(LockExecutor executor, Hold hold) {
            this.executor = executor;
            this.hold = hold;
        }

        /**
         * Gives the hold a new lease from now, if it is still held.
         * @param lease the lease, positive
         * @return whether it was still held; when not, the hold is given up
         */
        public boolean renewLease(Duration lease) {
            boolean renewed;
            try {
                renewed = hold.lock.renewLease(Math.max(1, lease.toMillis()), TimeUnit.MILLISECONDS, hold.ownerId);
            } catch (RuntimeException ex) {
                logger.debug("Could not renew the lease of lock '{}'", hold.name(), ex);
                renewed = false;
            }
            if (renewed) {
                hold.leaseRenewed(lease);
            } else {
                // Nobody will release a hold that could not be extended: drop its bookkeeping now.
                executor.release(hold);
            }
            return renewed;
        }

        /**
         * Releases the hold now, or keeps it until {@code keepFor} has passed: Redis then holds it
         * for that long (plus {@link #DEFERRED_LEASE_SLACK}), so that it lapses even if this process
         * dies, and a timer releases it when the time is up.
         * @param keepFor how long the lock must stay taken from now; zero or negative releases at once
         */
        public void releaseAfter(Duration keepFor) {
            if (keepFor.isNegative() || keepFor.isZero()) {
                executor.release(hold);
                return;
            }
            if (!renewLease(keepFor.plus(DEFERRED_LEASE_SLACK))) {
                return;
            }
            hold.deferred = true;
            timer().schedule(() -> executor.release(hold), keepFor.toNanos(), TimeUnit.NANOSECONDS);
        }
    }
}
