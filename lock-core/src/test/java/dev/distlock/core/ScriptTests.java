package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.internal.script.LuaScript;
import dev.distlock.core.internal.script.Scripts;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Every script loads on a real server under the SHA-1 we compute, and survives SCRIPT FLUSH. */
class ScriptTests {

    private final RedisServer redis = RedisServers.shared();

    @Test
    void shouldComputeTheShaRedisAssigns() {
        for (LuaScript script : Scripts.all()) {
            assertThat(redis.command("SCRIPT", "LOAD", script.source()))
                    .as(script.name())
                    .isEqualTo(script.sha1());
        }
    }

    @Test
    void shouldExpandSharedFragments() {
        assertThat(Scripts.all())
                .allSatisfy(script -> assertThat(script.source()).doesNotContain("--! include"));
        assertThat(Scripts.RW_READ_ACQUIRE.source()).contains("local function sweep(key, base)");
    }

    @Test
    void shouldReloadScriptsAfterFlush() throws Exception {
        try (LockClient client = LockClient.create(redis.uri())) {
            RedisLock lock = client.getLock("flush:" + UUID.randomUUID());
            assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS)).isTrue();
            lock.unlock();
            redis.command("SCRIPT", "FLUSH");
            assertThat(redis.command("SCRIPT", "EXISTS", Scripts.REENTRANT_ACQUIRE.sha1()))
                    .isEqualTo("0");
            assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS)).isTrue();
            lock.unlock();
            assertThat(redis.command("SCRIPT", "EXISTS", Scripts.REENTRANT_ACQUIRE.sha1()))
                    .isEqualTo("1");
        }
    }
}
