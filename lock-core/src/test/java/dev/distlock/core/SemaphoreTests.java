package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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

    @Test
    void whenRedisDoesNotAnswerThenAnAsynchronousReleaseFailsWithALockExceptionNamingTheSemaphore() throws Exception {
        RedisSemaphore semaphore = alice.getSemaphore(name);
        semaphore.trySetPermits(1);
        String permit = semaphore.tryAcquire(0, 30, TimeUnit.SECONDS);
        // Paused well past the 2 s command timeout: the release must not wait for Redis to come back.
        redis.command("CLIENT", "PAUSE", "4000", "ALL");
        try {
            CompletableFuture<Void> released = semaphore.releaseAsync(permit).toCompletableFuture();
            CompletableFuture<Boolean> set = semaphore.trySetPermitsAsync(2).toCompletableFuture();
            assertThatThrownBy(() -> released.get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(LockException.class)
                    .hasMessageContaining("'" + name + "'");
            assertThatThrownBy(() -> set.get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(LockException.class)
                    .hasMessageContaining("'" + name + "'");
        } finally {
            try {
                redis.command("CLIENT", "UNPAUSE");
            } catch (RuntimeException ignored) {
                // Without UNPAUSE the pause ends by itself.
            }
        }
    }

    @Test
    void whenPermitsAppearWithoutAnAnnouncementThenAWaiterStillTakesOne() throws Exception {
        // Permits no release announced: a count restored or set while the waiter's subscription was
        // being restored (a chaos run: a restart, then trySetPermits). Parked for the announcement
        // alone, the waiter would wait an hour; it must look again by itself.
        RedisSemaphore semaphore = alice.getSemaphore(name);
        CompletableFuture<String> waiter =
                semaphore.acquireAsync(30, TimeUnit.SECONDS).toCompletableFuture();
        // Subscribed, then the attempt made once it listens found nothing: parked.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> redis.command("PUBSUB", "NUMSUB", "redisson_sc:{" + name + "}")
                        .endsWith("1"));
        Thread.sleep(500);
        assertThat(waiter).isNotDone();
        redis.command("SET", name, "1");
        assertThat(waiter.get(20, TimeUnit.SECONDS)).isNotNull();
    }
}
