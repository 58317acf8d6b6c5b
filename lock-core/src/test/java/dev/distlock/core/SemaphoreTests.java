package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import org.junit.jupiter.api.Test;

/** The semaphore contract on a single server, and the permit count where Redisson keeps it. */
class SemaphoreTests extends AbstractSemaphoreContractTests {

    private final RedisServer redis = RedisServers.shared();

    @Override
    protected LockClientOptions.Builder connect(LockClientOptions.Builder options) {
        return options.uri(redis.uri());
    }

    @Test
    void shouldKeepThePermitCountUnderTheSemaphoresName() {
        alice.getSemaphore(name).trySetPermits(3);
        assertThat(redis.command("GET", name)).isEqualTo("3");
    }
}
