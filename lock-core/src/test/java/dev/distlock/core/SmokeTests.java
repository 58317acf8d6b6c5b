package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.distlock.core.test.RedisServers;

class SmokeTests {

    @Test
    void shouldLockAndUnlock() throws Exception {
        try (LockClient client = LockClient.create(RedisServers.shared().uri())) {
            RedisLock lock = client.getLock("smoke");
            assertThat(lock.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(lock.getHoldCount()).isEqualTo(1);
            lock.unlock();
            assertThat(lock.isLocked()).isFalse();
        }
    }
}
