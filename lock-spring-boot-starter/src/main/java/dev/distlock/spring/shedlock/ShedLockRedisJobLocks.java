package dev.distlock.spring.shedlock;

import dev.distlock.core.StringLockKeys;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.UUID;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * Job locks in the layout of ShedLock's own Redis providers: string key
 * {@code job-lock:<environment>:<name>}, value {@code ADDED:<ISO time>@<host>:<UUID>}, taken with
 * {@code SET NX PX lockAtMostFor}. Unlike ShedLock's provider by default, unlock and extend touch
 * the key only while it still holds this run's value (its {@code safeUpdate} mode), so a run that
 * outlived its {@code lockAtMostFor} never frees or extends the next run's lock.
 */
final class ShedLockRedisJobLocks implements DistlockLockProvider.JobLocks {

    /** ShedLock's {@code InternalRedisLockProvider.DEFAULT_KEY_PREFIX}. */
    static final String KEY_PREFIX = "job-lock";

    private static final String HOST = hostName();

    private final StringLockKeys keys;
    private final String environment;

    ShedLockRedisJobLocks(StringLockKeys keys, String environment) {
        this.keys = keys;
        this.environment = environment;
    }

    @Override
    public Optional<SimpleLock> tryLock(LockConfiguration configuration, Duration lease) {
        String key = KEY_PREFIX + ":" + environment + ":" + configuration.getName();
        String value = "ADDED:" + DateTimeFormatter.ISO_INSTANT.format(ClockProvider.now()) + "@" + HOST + ":"
                + UUID.randomUUID();
        return keys.trySet(key, value, lease) ? Optional.of(new KeyLock(configuration, key, value)) : Optional.empty();
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException ex) {
            return "unknown host";
        }
    }

    /** One run's key. */
    final class KeyLock extends AbstractSimpleLock {

        private final String key;
        private final String value;

        KeyLock(LockConfiguration configuration, String key, String value) {
            super(configuration);
            this.key = key;
            this.value = value;
        }

        /** Deletes the key at once, {@code lockAtLeastFor} aside: for a run that never started. */
        void releaseUnused() {
            keys.deleteIfHeld(key, value);
        }

        @Override
        protected void doUnlock() {
            Duration keepFor = DistlockLockProvider.JobTimes.until(lockConfiguration.getLockAtLeastUntil());
            if (keepFor.toMillis() > 0) {
                keys.expireIfHeld(key, value, keepFor);
            } else {
                keys.deleteIfHeld(key, value);
            }
        }

        @Override
        protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
            DistlockLockProvider.JobTimes.check(newConfiguration);
            Duration lease = DistlockLockProvider.JobTimes.until(newConfiguration.getLockAtMostUntil());
            return lease.toMillis() > 0 && keys.expireIfHeld(key, value, lease)
                    ? Optional.of(new KeyLock(newConfiguration, key, value))
                    : Optional.empty();
        }
    }
}
