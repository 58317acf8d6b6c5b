package dev.distlock.spring.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiPredicate;
import java.util.function.Function;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What ShedLock's suite does not ask of a provider: the factories and every layout name the argument
 * they refuse, and refuse it before anything is locked.
 */
class DistlockLockProviderArgumentsTests {

    private static final RedisServer redis = RedisServers.shared();
    private static final String ENVIRONMENT = "arguments";

    /** Each layout, and whether Redis holds a job's lock in it. */
    enum Layout {
        DISTLOCK(DistlockLockProvider::new, (redis, name) -> exists(redis, name)),
        SHEDLOCK_REDIS(
                client -> DistlockLockProvider.compatibleWithShedLockRedis(client, ENVIRONMENT),
                (redis, name) -> exists(redis, "job-lock:" + ENVIRONMENT + ":" + name)),
        TRANSITIONAL(
                client -> DistlockLockProvider.transitionalFromShedLockRedis(client, ENVIRONMENT),
                (redis, name) -> exists(redis, name) || exists(redis, "job-lock:" + ENVIRONMENT + ":" + name));

        final Function<LockClient, DistlockLockProvider> provider;
        final BiPredicate<RedisServer, String> locked;

        Layout(Function<LockClient, DistlockLockProvider> provider, BiPredicate<RedisServer, String> locked) {
            this.provider = provider;
            this.locked = locked;
        }

        private static boolean exists(RedisServer redis, String key) {
            return redis.command("EXISTS", key).trim().equals("1");
        }
    }

    @Test
    void whenTheClientOrEnvironmentIsMissingOrBlankThenTheErrorNamesIt() {
        assertThatThrownBy(() -> new DistlockLockProvider(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("'client'");
        assertThatThrownBy(() -> DistlockLockProvider.compatibleWithShedLockRedis(null, "default"))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("'client'");
        try (LockClient client = LockClient.create("redis://localhost:1")) {
            assertThatThrownBy(() -> DistlockLockProvider.compatibleWithShedLockRedis(client, null))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("'environment'");
            assertThatThrownBy(() -> DistlockLockProvider.compatibleWithShedLockRedis(client, " "))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'environment' must not be blank");
        }
    }

    private static LockConfiguration config(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void whenArgumentsAreBadThenTheErrorNamesThemAndNothingIsLocked(Layout layout) {
        String name = "job-" + UUID.randomUUID();
        try (LockClient client = LockClient.create(redis.uri())) {
            DistlockLockProvider provider = layout.provider.apply(client);
            assertThatThrownBy(() -> provider.lock(config(" ", Duration.ofMinutes(5), Duration.ZERO)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'name'");
            assertThatThrownBy(() -> provider.lock(config(name, Duration.ofSeconds(5), Duration.ofMillis(-1))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'lockAtLeastFor'")
                    .hasMessageContaining(name);
            assertThatThrownBy(() -> provider.lock(null))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("'lockConfiguration'");
            // ShedLock's own configuration refuses a lockAtLeastFor longer than lockAtMostFor (and so a
            // negative lockAtMostFor), naming the lock; the provider checks it again for other callers.
            assertThatThrownBy(() -> provider.lock(config(name, Duration.ofSeconds(1), Duration.ofSeconds(5))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lockAtLeastFor")
                    .hasMessageContaining("lockAtMostFor");
            assertThatThrownBy(() -> provider.lock(config(name, Duration.ofSeconds(-1), Duration.ZERO)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lockAtMostFor");
            assertThat(layout.locked.test(redis, name)).isFalse();
            // A lockAtMostFor that ran out before the call takes nothing.
            assertThat(provider.lock(new LockConfiguration(
                            ClockProvider.now().minusSeconds(10), name, Duration.ofSeconds(5), Duration.ZERO)))
                    .isEmpty();
            assertThat(layout.locked.test(redis, name)).isFalse();

            Optional<SimpleLock> taken = provider.lock(config(name, Duration.ofSeconds(10), Duration.ZERO));
            assertThat(taken).isNotEmpty();
            SimpleLock lock = taken.get();
            // ShedLock's own configuration refuses lockAtLeastFor > lockAtMostFor, naming both.
            assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(1), Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lockAtLeastFor");
            assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'lockAtLeastFor'");
            // A refused extension leaves the lock valid, held, and releasable.
            assertThat(layout.locked.test(redis, name)).isTrue();
            lock.unlock();
            assertThat(layout.locked.test(redis, name)).isFalse();
        }
    }
}
