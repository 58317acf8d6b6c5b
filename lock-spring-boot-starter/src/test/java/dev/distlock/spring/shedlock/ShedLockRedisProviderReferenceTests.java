package dev.distlock.spring.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.net.URI;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The reference for the {@link DistlockLockProvider} suites: ShedLock's own provider suite
 * ({@link AbstractExtensibleLockProviderIntegrationTest}) on ShedLock's own Redis provider
 * ({@code RedisLockProvider} of {@code shedlock-provider-redis-spring}, the ShedLock version the
 * starter is built with), on the same Redis server with the same timing. A case that fails on a
 * Distlock layout and here too is the suite's or the machine's; one that fails only there is ours.
 */
class ShedLockRedisProviderReferenceTests extends AbstractExtensibleLockProviderIntegrationTest {

    private static final RedisServer redis = RedisServers.shared();

    private static final String ENVIRONMENT = "shedlock-suite-reference";

    private static LettuceConnectionFactory connections;

    private RedisLockProvider provider;

    @BeforeAll
    static void connect() {
        URI uri = URI.create(redis.uri());
        connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
        connections.afterPropertiesSet();
        connections.start();
    }

    @AfterAll
    static void disconnect() {
        connections.destroy();
    }

    @BeforeEach
    void setUpProvider() {
        provider = new RedisLockProvider(connections, ENVIRONMENT);
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return provider;
    }

    @Override
    protected void assertLocked(String lockName) {
        assertThat(ShedLockRedisLayoutLockProviderTests.shedLockKeyExists(redis, ENVIRONMENT, lockName))
                .as("lock '%s' is held in Redis", lockName)
                .isTrue();
    }

    @Override
    protected void assertUnlocked(String lockName) {
        assertThat(ShedLockRedisLayoutLockProviderTests.shedLockKeyExists(redis, ENVIRONMENT, lockName))
                .as("lock '%s' is free in Redis", lockName)
                .isFalse();
    }
}
