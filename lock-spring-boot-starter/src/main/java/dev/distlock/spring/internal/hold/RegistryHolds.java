package dev.distlock.spring.internal.hold;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockListener;
import dev.distlock.spring.LockType;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What the locks of Spring Integration's lock registry tell the starter, so that they are measured
 * and traced like the annotation's ({@code distlock.acquire}, {@code distlock.held},
 * {@code distlock.active}, {@code distlock.waiting}, {@code distlock.lease.lost}): each acquisition
 * and hold of a thread, its outermost ones only. As {@link BridgeLocks}, it is built from a
 * {@link LockClient} alone and finds the observers through the executor the starter built around
 * that client; a client the starter did not configure reports to no observer and lists nothing.
 *
 * <p>Locks in Distlock's layout are core locks, which core lists and reports to the client's
 * listeners itself. Locks in a layout core knows nothing of (plain string keys) are reported here
 * to the client's listeners too, and kept in the {@link HoldIndex} for the {@code distlock}
 * endpoint: built with {@link #forStringKeys}.
 */
public final class RegistryHolds {

    private final LockClient client;
    private final String description;
    private final boolean stringKeys;
    private volatile @Nullable LockExecutor executor;

    private RegistryHolds(LockClient client, String description, boolean stringKeys) {
        this.client = Objects.requireNonNull(client, "'client' must not be null");
        this.description = description;
        this.stringKeys = stringKeys;
    }

    /**
     * Reports the holds of core locks, which core lists and tells the listeners of itself.
     * @param client the lock client
     * @param description what holds the locks, for messages and the endpoint
     * @return the reporter
     */
    public static RegistryHolds forCoreLocks(LockClient client, String description) {
        return new RegistryHolds(client, description, false);
    }

    /**
     * Reports the holds of plain string keys, which only this reporter lists and tells the client's
     * listeners of.
     * @param client the lock client
     * @param description what holds the locks, for messages and the endpoint
     * @return the reporter
     */
    public static RegistryHolds forStringKeys(LockClient client, String description) {
        return new RegistryHolds(client, description, true);
    }

    /**
     * Begins an acquisition on the calling thread.
     * @param name the lock name, also the {@code lock.name} tag
     * @param leaseMillis the lease, or -1 for a watchdog-renewed one
     * @return the acquisition, to end once
     */
    public Attempt started(String name, long leaseMillis) {
        return new Attempt(name, leaseMillis);
    }

    private @Nullable LockExecutor executor() {
        LockExecutor current = executor;
        if (current == null) {
            // Not cached while absent: the registry may lock before the starter built the executor.
            current = BridgeLocks.registered(client);
            executor = current;
        }
        return current;
    }

    private LockObserver observer() {
        LockExecutor current = executor();
        return current != null ? current.observer() : LockObserver.NO_OP;
    }

    /** @return the index the endpoint reads, or {@code null} when the starter built no executor */
    private @Nullable HoldIndex index() {
        LockExecutor current = executor();
        return current != null ? current.index() : null;
    }

    private LockListener listener() {
        return client.getOptions().listener();
    }

    /** One acquisition of a thread that held the lock not at all before. */
    public final class Attempt {

        private final String name;
        private final Thread thread = Thread.currentThread();
        private final long start = System.nanoTime();
        private final boolean watchdog;
        private final LockObserver.Acquiring acquiring;

        private Attempt(String name, long leaseMillis) {
            this.name = name;
            this.watchdog = leaseMillis == -1;
            Duration lease = watchdog ? Duration.ofMillis(-1) : Duration.ofMillis(leaseMillis);
            LockRequest request = new LockRequest(
                    name, List.of(name), LockType.REENTRANT, false, Duration.ofMillis(-1), lease, description);
            this.acquiring = observer().acquireStarted(request, thread.getId());
        }

        /**
         * The lock was taken.
         * @param key the Redis key, for the endpoint
         * @param holdCount how many times the thread holds it now
         * @return the hold, to end once
         */
        public RegistryHold acquired(String key, IntSupplier holdCount) {
            LockObserver.Holding holding = acquiring.acquired();
            StringKeyHold listed = null;
            HoldIndex index = null;
            if (stringKeys) {
                listener().onAcquired(name, thread.getId(), System.nanoTime() - start);
                listed =
                        new StringKeyHold(name, key, description, thread, watchdog, holdCount, client.stringLockKeys());
                index = index();
                if (index != null) {
                    index.addStringKeyHold(listed);
                }
            }
            return new RegistryHold(name, thread.getId(), holding, listed, index);
        }

        /** The wait ran out without the lock. */
        public void timedOut() {
            acquiring.ended(LockObserver.Outcome.TIMEOUT, null);
            if (stringKeys) {
                listener().onTimeout(name, thread.getId(), System.nanoTime() - start);
            }
        }

        /**
         * The acquisition failed: Redis failed, or the wait was interrupted.
         * @param error the failure
         */
        public void failed(Throwable error) {
            acquiring.ended(LockObserver.Outcome.ERROR, error);
        }
    }

    /** One thread's hold, from its outermost acquisition to its last unlock. */
    public final class RegistryHold {

        private final String name;
        private final long ownerId;
        private final LockObserver.Holding holding;
        private final @Nullable StringKeyHold listed;
        /** Where the hold is listed: the index it was added to, even if another executor came since. */
        private final @Nullable HoldIndex index;

        private final AtomicBoolean lost = new AtomicBoolean();
        private final AtomicBoolean ended = new AtomicBoolean();

        private RegistryHold(
                String name,
                long ownerId,
                LockObserver.Holding holding,
                @Nullable StringKeyHold listed,
                @Nullable HoldIndex index) {
            this.name = name;
            this.ownerId = ownerId;
            this.holding = holding;
            this.listed = listed;
            this.index = index;
        }

        /** The last unlock is about to release it in Redis. */
        public void releasing() {
            if (listed != null && !lost.get()) {
                listener().onReleasing(name, ownerId);
            }
        }

        /** The last unlock released it. */
        public void released() {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            if (listed != null) {
                listener().onReleased(name, ownerId);
            }
            end();
        }

        /**
         * The lease was found lost (by a renewal, or by the unlock): told once; the hold stays
         * until {@link #ended()} or {@link #released()}, unlisted.
         */
        public void leaseLost() {
            if (ended.get() || !lost.compareAndSet(false, true)) {
                return;
            }
            holding.leaseLost();
            if (listed != null) {
                unlist(listed);
                listener().onLeaseLost(name, ownerId);
            }
        }

        /** The hold ended without a confirmed release: lost, or the release failed. */
        public void ended() {
            if (ended.compareAndSet(false, true)) {
                end();
            }
        }

        private void end() {
            if (listed != null) {
                unlist(listed);
            }
            holding.released();
        }

        private void unlist(StringKeyHold hold) {
            if (index != null) {
                index.removeStringKeyHold(hold);
            }
        }
    }
}
