package dev.distlock.spring.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * ShedLock's own provider suite ({@link AbstractExtensibleLockProviderIntegrationTest}, every case as
 * ShedLock wrote it) on {@link DistlockLockProvider#compatibleWithShedLockRedis}: ShedLock's own
 * Redis key layout, {@code job-lock:<environment>:<job>}.
 */
class ShedLockRedisLayoutLockProviderTests extends AbstractExtensibleLockProviderIntegrationTest {

    private static final RedisServer redis = RedisServers.shared();

    /** An environment of this class's own: the suite's fixed job names are kept apart from other tests'. */
    static final String ENVIRONMENT = "shedlock-suite-compatible";

    private LockClient node;
    private DistlockLockProvider provider;

    @BeforeEach
    void setUpNode() {
        node = LockClient.create(redis.uri());
        provider = DistlockLockProvider.compatibleWithShedLockRedis(node, ENVIRONMENT);
    }

    @AfterEach
    void tearDownNode() {
        node.close();
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return provider;
    }

    static boolean shedLockKeyExists(RedisServer redis, String environment, String lockName) {
        return redis.command("EXISTS", "job-lock:" + environment + ":" + lockName)
                .trim()
                .equals("1");
    }

    @Override
    protected void assertLocked(String lockName) {
        assertThat(shedLockKeyExists(redis, ENVIRONMENT, lockName))
                .as("lock '%s' is held in Redis", lockName)
                .isTrue();
    }

    @Override
    protected void assertUnlocked(String lockName) {
        assertThat(shedLockKeyExists(redis, ENVIRONMENT, lockName))
                .as("lock '%s' is free in Redis", lockName)
                .isFalse();
    }
}
