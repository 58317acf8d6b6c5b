package dev.distlock.spring.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's own provider suite, {@link AbstractExtensibleLockProviderIntegrationTest} of
 * {@code shedlock-test-support} (every case, as ShedLock wrote it), on {@link DistlockLockProvider}'s
 * default layout: a Distlock lock named after the job, under the client's key prefix. The same suite
 * runs on the other two layouts and, as the reference, on ShedLock's own Redis provider
 * ({@link ShedLockRedisProviderReferenceTests}). Only the suite's cases for storage-based providers
 * ({@code AbstractStorageBasedLockProviderIntegrationTest}, a cache to clear) do not apply: no
 * provider here is a {@code StorageBasedLockProvider}.
 */
class DistlockLayoutLockProviderTests extends AbstractExtensibleLockProviderIntegrationTest {

    private static final RedisServer redis = RedisServers.shared();

    /** The suite's fixed job names ({@code lock1}, {@code lock2}, {@code name2}) kept apart from other tests'. */
    private static final String PREFIX = "shedlock-suite:distlock:";

    private LockClient node;
    private LockClient otherNode;
    private DistlockLockProvider provider;

    @BeforeEach
    void setUpNodes() {
        node = LockClient.create(
                LockClientOptions.builder().uri(redis.uri()).keyPrefix(PREFIX).build());
        otherNode = LockClient.create(
                LockClientOptions.builder().uri(redis.uri()).keyPrefix(PREFIX).build());
        provider = new DistlockLockProvider(node);
    }

    @AfterEach
    void tearDownNodes() {
        node.close();
        otherNode.close();
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return provider;
    }

    private static boolean exists(String key) {
        return redis.command("EXISTS", key).trim().equals("1");
    }

    @Override
    protected void assertLocked(String lockName) {
        assertThat(exists(PREFIX + lockName))
                .as("lock '%s' is held in Redis", lockName)
                .isTrue();
    }

    @Override
    protected void assertUnlocked(String lockName) {
        assertThat(exists(PREFIX + lockName))
                .as("lock '%s' is free in Redis", lockName)
                .isFalse();
    }

    @Test
    void whenAJobHoldsItsLockThenDistlockLocksOfTheSameNameAreExcludedBothWays() throws Exception {
        Optional<SimpleLock> job = provider.lock(lockConfig(LOCK_NAME1));
        assertThat(job).isNotEmpty();
        RedisLock sameName = otherNode.getLock(LOCK_NAME1);
        assertThat(sameName.tryLock()).isFalse();
        assertThat(node.heldLocks()).anyMatch(held -> held.name().equals(LOCK_NAME1));
        job.get().unlock();

        assertThat(sameName.tryLock()).isTrue();
        try {
            assertThat(provider.lock(lockConfig(LOCK_NAME1))).isEmpty();
        } finally {
            sameName.unlock();
        }
        assertThat(node.heldLocks()).noneMatch(held -> held.name().equals(LOCK_NAME1));
    }
}
