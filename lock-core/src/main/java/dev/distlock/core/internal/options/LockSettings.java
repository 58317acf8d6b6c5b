package dev.distlock.core.internal.options;

import java.time.Duration;
import java.util.Objects;

/**
 * How the client's locks behave: the watchdog's lease, the bound on calls that do not wait, how
 * long a fair-lock waiter stays queued, the key prefix, and the replica acknowledgement an
 * acquisition waits for.
 *
 * @param watchdogTimeout lease of watchdog-renewed holds
 * @param commandTimeout bound on every call that does not wait for a lock
 * @param fairLockWaitTimeout time a fair-lock waiter stays queued beyond its own wait
 * @param keyPrefix prefix of every lock's Redis key, may be empty
 * @param replicaSyncReplicas replicas that must acknowledge an acquisition, 0 when off
 * @param replicaSyncTimeout how long an acquisition waits for them
 */
public record LockSettings(
        Duration watchdogTimeout,
        Duration commandTimeout,
        Duration fairLockWaitTimeout,
        String keyPrefix,
        int replicaSyncReplicas,
        Duration replicaSyncTimeout) {

    /** Collects lock settings, checking each as it is set; not thread-safe. */
    public static final class Builder {

        private Duration watchdogTimeout;
        private Duration commandTimeout;
        private Duration fairLockWaitTimeout;
        private String keyPrefix = "";
        private int replicaSyncReplicas;
        private Duration replicaSyncTimeout = Duration.ZERO;

        /**
         * Starts from the given defaults, no key prefix and no replica acknowledgement.
         * @param watchdogTimeout default watchdog lease
         * @param commandTimeout default command timeout
         * @param fairLockWaitTimeout default fair-lock queue timeout
         */
        public Builder(Duration watchdogTimeout, Duration commandTimeout, Duration fairLockWaitTimeout) {
            this.watchdogTimeout = watchdogTimeout;
            this.commandTimeout = commandTimeout;
            this.fairLockWaitTimeout = fairLockWaitTimeout;
        }

        /** @param timeout positive duration */
        public void watchdogTimeout(Duration timeout) {
            this.watchdogTimeout = Arguments.requirePositive(timeout, "watchdogTimeout");
        }

        /** @param timeout positive duration */
        public void commandTimeout(Duration timeout) {
            this.commandTimeout = Arguments.requirePositive(timeout, "commandTimeout");
        }

        /** @param timeout positive duration */
        public void fairLockWaitTimeout(Duration timeout) {
            this.fairLockWaitTimeout = Arguments.requirePositive(timeout, "fairLockWaitTimeout");
        }

        /** @param prefix the prefix, may be empty */
        public void keyPrefix(String prefix) {
            this.keyPrefix = Objects.requireNonNull(prefix, "'keyPrefix' must not be null");
        }

        /**
         * @param replicas replicas required, at least 1
         * @param timeout positive duration
         */
        public void replicaSync(int replicas, Duration timeout) {
            if (replicas < 1) {
                throw new IllegalArgumentException("'replicas' must be at least 1, was " + replicas);
            }
            this.replicaSyncTimeout = Arguments.requirePositive(timeout, "timeout");
            this.replicaSyncReplicas = replicas;
        }

        /** @return the settings */
        public LockSettings build() {
            return new LockSettings(
                    watchdogTimeout,
                    commandTimeout,
                    fairLockWaitTimeout,
                    keyPrefix,
                    replicaSyncReplicas,
                    replicaSyncTimeout);
        }
    }
}
