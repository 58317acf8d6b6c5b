package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisCluster;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.SlotMigration;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A live slot migration that moves a lock's hash apart from its companion keys (a reshard batch of
 * fewer keys than the lock has) must not let a script decide on a companion it cannot see: the
 * unlock latch that makes a retried release replay its outcome, or a fair lock's queue. Declared,
 * such keys make Redis refuse the script (TRYAGAIN) until the move completes.
 */
@Tag("fault")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ReshardCompanionKeysFaultTests {

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    static Stream<Arguments> reentrantKinds() {
        return Stream.of(
                kind("reentrant", LockClient::getLock),
                kind("fair", LockClient::getFairLock),
                kind("write", (client, name) -> client.getReadWriteLock(name).writeLock()),
                // Two members in one slot: one script takes and releases both.
                Arguments.of(
                        "multi",
                        (BiFunction<LockClient, String, RedisLock>) (client, name) ->
                                MultiLock.of(client.getLock("{" + name + "}a"), client.getLock("{" + name + "}b")),
                        (Function<String, String[]>) name -> new String[] {"{" + name + "}a", "{" + name + "}b"},
                        "*2\r\n:0\r\n:0\r\n"));
    }

    private static Arguments kind(String label, BiFunction<LockClient, String, RedisLock> lock) {
        return Arguments.of(label, lock, (Function<String, String[]>) name -> new String[] {name}, ":0\r\n");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("reentrantKinds")
    void whenARetriedUnlockFindsTheHashMovedWithoutItsLatchThenItReleasesOneLevelOnly(
            String label,
            BiFunction<LockClient, String, RedisLock> kind,
            Function<String, String[]> hashes,
            String released)
            throws Exception {
        String name = "reshard-latch-" + UUID.randomUUID();
        LostReply lost = new LostReply();
        ClientResources resources =
                ClientResources.builder().nettyCustomizer(lost).build();
        try (LockClient client = LockClient.create(LockClientOptions.builder()
                .cluster(cluster.uris())
                .commandTimeout(Duration.ofSeconds(15))
                .clientResources(resources)
                .build())) {
            RedisLock lock = kind.apply(client, name);
            long owner = RedisLock.newOwnerId();
            assertThat(lock.tryLock(0, 60, TimeUnit.SECONDS, owner)).isTrue();
            assertThat(lock.tryLock(0, 60, TimeUnit.SECONDS, owner)).isTrue();

            RedisServer source = cluster.masterOf(name);
            AtomicReference<SlotMigration> migration = new AtomicReference<>();
            // The first release runs (one level), its reply is lost with the connection, and a
            // reshard starts and moves the hash alone before the client sends the release again.
            lost.arm(source.port(), Set.of(released), () -> {
                migration.set(SlotMigration.begin(cluster, name, cluster.otherMasterThan(name)));
                migration.get().migrate(hashes.apply(name));
            });
            CompletableFuture<Void> unlock = CompletableFuture.runAsync(() -> lock.unlock(owner));
            assertThat(lost.dropped.await(20, TimeUnit.SECONDS))
                    .as("the first release's reply was dropped")
                    .isTrue();
            assertThat(migration.get().keysOnSource())
                    .as("the latch and the grant record left behind")
                    .isNotEmpty();
            await().pollDelay(Duration.ofMillis(800)).until(() -> true);
            assertThat(lock.isHeldBy(owner))
                    .as("the lock while split, one of its two holds released")
                    .isTrue();
            migration.get().finish();
            unlock.get(30, TimeUnit.SECONDS);

            assertThat(lock.isHeldBy(owner))
                    .as("the lock after one unlock of two holds (the retry replays the first outcome)")
                    .isTrue();
            lock.unlock(owner);
            assertThat(lock.isLocked()).isFalse();
        } finally {
            resources.shutdown();
        }
    }

    @Test
    void whenTheHashMovesWithoutTheGrantRecordThenTheCleanUpAfterALostGrantStillReleasesIt() throws Exception {
        String name = "reshard-grant-" + UUID.randomUUID();
        LostReply lost = new LostReply();
        ClientResources resources =
                ClientResources.builder().nettyCustomizer(lost).build();
        try (LockClient client = LockClient.create(LockClientOptions.builder()
                        .cluster(cluster.uris())
                        .commandTimeout(Duration.ofSeconds(15))
                        .clientResources(resources)
                        .build());
                LockClient other = LockClient.create(
                        LockClientOptions.builder().cluster(cluster.uris()).build())) {
            RedisLock lock = client.getLock(name);
            RedisServer source = cluster.masterOf(name);
            AtomicReference<SlotMigration> migration = new AtomicReference<>();
            // The grant runs (hash and grant record written), its reply is lost with the connection,
            // and a reshard starts and moves the hash alone before the client cleans up after it.
            lost.arm(source.port(), Set.of("$-1\r\n", "_\r\n"), () -> {
                migration.set(SlotMigration.begin(cluster, name, cluster.otherMasterThan(name)));
                migration.get().migrate(name);
            });
            String outcome = attempt(lock, 60);
            assertThat(lost.dropped.await(20, TimeUnit.SECONDS))
                    .as("the grant's reply was dropped")
                    .isTrue();
            assertThat(migration.get().keysOnSource())
                    .as("the grant record left behind")
                    .isNotEmpty();
            await().pollDelay(Duration.ofMillis(800)).until(() -> true);
            migration.get().finish();

            RedisLock elsewhere = other.getLock(name);
            await().atMost(Duration.ofSeconds(15))
                    .alias("the lock free for another client (the caller was told " + outcome + ")")
                    .until(() -> attempt(elsewhere, 10).equals("acquired"));
        } finally {
            resources.shutdown();
        }
    }

    @Test
    void whenTheQueueHasNotMovedYetThenAFairWaiterDoesNotSkipIt() throws Exception {
        String name = "reshard-fair-" + UUID.randomUUID();
        RedisServer source = cluster.masterOf(name);
        // A waiter of another process, parked between two attempts: first in line for the free lock.
        String time = source.command("TIME").split("\n")[0].trim();
        long deadline = Long.parseLong(time) * 1000 + 60_000;
        source.command("RPUSH", "redisson_lock_queue:{" + name + "}", "other-process:1");
        source.command("ZADD", "redisson_lock_timeout:{" + name + "}", Long.toString(deadline), "other-process:1");
        try (LockClient client = LockClient.create(LockClientOptions.builder()
                .cluster(cluster.uris())
                .commandTimeout(Duration.ofSeconds(2))
                .build())) {
            RedisLock lock = client.getFairLock(name);
            assertThat(attempt(lock)).as("before the migration").isEqualTo("refused");

            SlotMigration migration = SlotMigration.begin(cluster, name, cluster.otherMasterThan(name));
            assertThat(migration.keysOnSource())
                    .as("the queue and its deadlines")
                    .hasSize(2);
            assertThat(attempt(lock))
                    .as("while the queue is on the migrating node")
                    .isNotEqualTo("acquired");
            migration.finish();
            assertThat(attempt(lock)).as("after the move").isEqualTo("refused");
        }
    }

    /** @return "acquired", "refused", or the failure of an attempt that does not wait */
    private static String attempt(RedisLock lock) {
        return attempt(lock, 10);
    }

    /** @return "acquired", "refused", or the failure of an attempt that does not wait, holding for the lease */
    private static String attempt(RedisLock lock, long leaseSeconds) {
        try {
            return lock.tryLock(0, leaseSeconds, TimeUnit.SECONDS, RedisLock.newOwnerId()) ? "acquired" : "refused";
        } catch (LockException ex) {
            return "failed: " + ex.getMessage();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /**
     * Once armed, drops the first reply that matches from the given port, runs a step (off the event
     * loop), then closes that connection: the call ran in Redis, but its caller never hears of it.
     */
    private static final class LostReply implements NettyCustomizer {

        final CountDownLatch dropped = new CountDownLatch(1);
        private final AtomicInteger port = new AtomicInteger(-1);
        private volatile Set<String> replies = Set.of();
        private volatile Runnable step = () -> {};

        void arm(int port, Set<String> replies, Runnable step) {
            this.replies = replies;
            this.step = step;
            this.port.set(port);
        }

        @Override
        public void afterChannelInitialized(Channel channel) {
            channel.pipeline().addFirst(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    int armed = port.get();
                    if (armed < 0
                            || !(ctx.channel().remoteAddress() instanceof InetSocketAddress remote)
                            || remote.getPort() != armed
                            || !(msg instanceof ByteBuf buffer)
                            || !replies.contains(buffer.toString(StandardCharsets.UTF_8))
                            || !port.compareAndSet(armed, -1)) {
                        ctx.fireChannelRead(msg);
                        return;
                    }
                    ReferenceCountUtil.release(msg);
                    CompletableFuture.runAsync(step).whenComplete((ignored, failure) -> {
                        dropped.countDown();
                        ctx.channel().close();
                    });
                }
            });
        }
    }
}
