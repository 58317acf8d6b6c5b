package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisSentinelGroup;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SentinelTopologyTests {

    private static LockClient connect(RedisSentinelGroup group) {
        return LockClient.create(LockClientOptions.builder()
                .sentinel(RedisSentinelGroup.MASTER_ID, group.sentinelUris())
                .build());
    }

    @Test
    void whenMasterIsKilledThenAcquisitionsResumeAfterPromotionAndWaitersKeepWaiting() throws Exception {
        try (RedisSentinelGroup group = RedisSentinelGroup.start();
                LockClient client = connect(group);
                LockClient other = connect(group)) {
            String run = UUID.randomUUID().toString();
            RedisLock before = client.getLock("before-" + run);
            assertThat(before.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
            assertThat(group.master().command("EXISTS", before.getName())).isEqualTo("1");
            before.unlock();

            // A hold that the replica has seen, and a waiter queued behind it.
            String contended = "contended-" + run;
            long holder = RedisLock.newOwnerId();
            long waiter = RedisLock.newOwnerId();
            assertThat(client.getLock(contended).tryLock(0, 4, TimeUnit.SECONDS, holder))
                    .isTrue();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> group.replica().command("EXISTS", contended).equals("1"));
            CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
                try {
                    return other.getLock(contended).tryLock(40, 10, TimeUnit.SECONDS, waiter);
                } catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            String channel = "redisson_lock__channel:{" + contended + "}";
            await().atMost(Duration.ofSeconds(5))
                    .until(() ->
                            group.master().command("PUBSUB", "NUMSUB", channel).endsWith("\n1"));

            group.master().stop();
            RedisLock after = client.getLock("after-" + run);
            long owner = RedisLock.newOwnerId();
            await().atMost(Duration.ofSeconds(40))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        try {
                            return after.tryLock(0, 10, TimeUnit.SECONDS, owner);
                        } catch (LockException stillFailingOver) {
                            return false;
                        }
                    });

            assertThat(group.currentMasterPort()).isEqualTo(group.replica().port());
            assertThat(group.replica().command("EXISTS", after.getName())).isEqualTo("1");
            assertThat(waited.get(40, TimeUnit.SECONDS))
                    .as("waiter kept waiting through the failover")
                    .isTrue();
            assertThat(other.getLock(contended).isHeldBy(waiter)).isTrue();
            after.unlock(owner);
            other.getLock(contended).unlock(waiter);
        }
    }
}
