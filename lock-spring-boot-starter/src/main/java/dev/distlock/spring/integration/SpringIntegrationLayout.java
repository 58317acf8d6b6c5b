package dev.distlock.spring.integration;

import dev.distlock.core.LockClient;
import dev.distlock.core.StringLockKeys;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ConcurrentReferenceHashMap;

/**
 * The layout of Spring Integration 7.1's {@code RedisLockRegistry} under one registry key, shared by
 * the locks of one registry: the string key {@code <registryKey>:<lockKey>} (no key prefix), whose
 * value is the registry's id, the same for all its threads, and the unlock channel
 * {@code <registryKey>-channel:<registryKey>:<lockKey>}, on which a release publishes the Redis key.
 */
final class SpringIntegrationLayout {

    /** {@code RedisLockRegistry}'s default {@code idleBetweenTries}: its spin locks never publish a release. */
    static final Duration RETRY_INTERVAL = Duration.ofMillis(100);

    private static volatile @Nullable ScheduledExecutorService renewals;

    final StringLockKeys keys;
    final String registryKey;
    /** One id per registry, as {@code RedisLockRegistry}'s {@code clientId}: another registry is another holder. */
    final String value = UUID.randomUUID().toString();

    final Duration watchdogTimeout;

    private final LockClient client;

    /**
     * The local lock of each key, shared by every handle of the key, since all threads of the
     * registry write the same value: only these locks keep them apart. Weakly held, so that keys
     * nobody uses any more do not pile up; a handle holds its key's lock strongly.
     */
    private final ConcurrentReferenceHashMap<String, ReentrantLock> localLocks =
            new ConcurrentReferenceHashMap<>(16, ConcurrentReferenceHashMap.ReferenceType.WEAK);

    SpringIntegrationLayout(LockClient client, String registryKey) {
        this.client = client;
        this.keys = client.stringLockKeys();
        this.registryKey = registryKey;
        this.watchdogTimeout = client.getOptions().watchdogTimeout();
    }

    boolean clientClosed() {
        return client.isClosed();
    }

    String key(String lockKey) {
        return registryKey + ':' + lockKey;
    }

    String channel(String key) {
        return registryKey + "-channel:" + key;
    }

    ReentrantLock localLock(String key) {
        return localLocks.computeIfAbsent(key, ignored -> new ReentrantLock());
    }

    /** One daemon thread renews the held locks of every such registry, as a watchdog. */
    static ScheduledExecutorService renewals() {
        ScheduledExecutorService current = renewals;
        if (current == null) {
            synchronized (SpringIntegrationLayout.class) {
                current = renewals;
                if (current == null) {
                    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
                        Thread thread = new Thread(task, "distlock-registry-renewal");
                        thread.setDaemon(true);
                        return thread;
                    });
                    executor.setRemoveOnCancelPolicy(true);
                    current = executor;
                    renewals = current;
                }
            }
        }
        return current;
    }
}
