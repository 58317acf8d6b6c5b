package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * Cancelling a subscriber or a future while it waits for the lock abandons the wait: once the
 * other holder releases, nobody holds the lock and this instance keeps no hold.
 */
class CancelWhileWaitingTests {

    static final RedisServer redis = RedisServers.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockAspectAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + redis.uri(), "distlock.defaults.wait-time=-1")
            .withBean(WaitingService.class);

    @BeforeEach
    void flush() {
        redis.command("FLUSHALL");
    }

    @Test
    void whenAMonoSubscriberCancelsWhileWaitingThenTheLockIsFreeOnceTheHolderReleases() throws Exception {
        runner.run(context -> {
            LockClient client = context.getBean(LockClient.class);
            try (LockClient other = LockClient.create(redis.uri())) {
                RedisLock held = other.getLock("cancel-mono");
                long owner = RedisLock.newOwnerId();
                assertThat(held.tryLock(0, 30_000, TimeUnit.MILLISECONDS, owner))
                        .isTrue();
                Disposable waiting =
                        context.getBean(WaitingService.class).mono().subscribe();
                await().pollDelay(Duration.ofMillis(300)).until(() -> held.isHeldBy(owner));
                waiting.dispose();
                held.unlock(owner);
                assertFreeAndNotHeld(client, "cancel-mono");
            }
        });
    }

    @Test
    void whenAFutureIsCancelledWhileWaitingThenTheLockIsFreeOnceTheHolderReleases() throws Exception {
        runner.run(context -> {
            LockClient client = context.getBean(LockClient.class);
            try (LockClient other = LockClient.create(redis.uri())) {
                RedisLock held = other.getLock("cancel-stage");
                long owner = RedisLock.newOwnerId();
                assertThat(held.tryLock(0, 30_000, TimeUnit.MILLISECONDS, owner))
                        .isTrue();
                CompletableFuture<String> waiting =
                        context.getBean(WaitingService.class).stage().toCompletableFuture();
                await().pollDelay(Duration.ofMillis(300)).until(() -> !waiting.isDone());
                assertThat(waiting.cancel(true)).isTrue();
                held.unlock(owner);
                assertFreeAndNotHeld(client, "cancel-stage");
                assertThat(context.getBean(WaitingService.class).calls()).isZero();
            }
        });
    }

    private static void assertFreeAndNotHeld(LockClient client, String name) {
        await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(5))
                .until(() ->
                        !client.getLock(name).isLocked() && client.heldLocks().isEmpty());
    }

    static class WaitingService {

        private int calls;

        /** @return how often a method body ran */
        public int calls() {
            return calls;
        }

        @DistributedLock(name = "cancel-mono")
        public Mono<String> mono() {
            calls++;
            return Mono.just("ran");
        }

        @DistributedLock(name = "cancel-stage")
        public CompletionStage<String> stage() {
            calls++;
            return CompletableFuture.completedFuture("ran");
        }
    }
}
