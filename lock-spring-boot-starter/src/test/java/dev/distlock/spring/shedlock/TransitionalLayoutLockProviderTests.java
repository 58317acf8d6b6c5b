package dev.distlock.spring.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * ShedLock's own provider suite ({@link AbstractExtensibleLockProviderIntegrationTest}, every case as
 * ShedLock wrote it) on {@link DistlockLockProvider#transitionalFromShedLockRedis}, which holds each
 * run's lock in both layouts: "locked" means both keys are there, "unlocked" that neither is.
 */
class TransitionalLayoutLockProviderTests extends AbstractExtensibleLockProviderIntegrationTest {

    private static final RedisServer redis = RedisServers.shared();

    private static final String ENVIRONMENT = "shedlock-suite-transitional";
    private static final String PREFIX = "shedlock-suite:transitional:";

    private LockClient node;
    private DistlockLockProvider provider;

    @BeforeEach
    void setUpNode() {
        node = LockClient.create(
                LockClientOptions.builder().uri(redis.uri()).keyPrefix(PREFIX).build());
        provider = DistlockLockProvider.transitionalFromShedLockRedis(node, ENVIRONMENT);
    }

    @AfterEach
    void tearDownNode() {
        node.close();
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return provider;
    }

    private static boolean distlockKeyExists(String lockName) {
        return redis.command("EXISTS", PREFIX + lockName).trim().equals("1");
    }

    @Override
    protected void assertLocked(String lockName) {
        assertThat(ShedLockRedisLayoutLockProviderTests.shedLockKeyExists(redis, ENVIRONMENT, lockName))
                .as("ShedLock's key of '%s' is held", lockName)
                .isTrue();
        assertThat(distlockKeyExists(lockName))
                .as("Distlock's lock '%s' is held", lockName)
                .isTrue();
    }

    @Override
    protected void assertUnlocked(String lockName) {
        assertThat(ShedLockRedisLayoutLockProviderTests.shedLockKeyExists(redis, ENVIRONMENT, lockName))
                .as("ShedLock's key of '%s' is free", lockName)
                .isFalse();
        assertThat(distlockKeyExists(lockName))
                .as("Distlock's lock '%s' is free", lockName)
                .isFalse();
    }
}
