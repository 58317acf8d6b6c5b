package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A reply that reaches the client late (a busy event loop, a GC pause after the read) must not
 * lengthen a lease. Redis starts a lease when it runs the script; the client counts an explicit
 * lease from when it sent the call, so the lease it sets again when a re-entry is released is never
 * longer than what is left of Redis' own. Counted from the late reply, it was longer by the delay.
 */
@Tag("fault")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DelayedReplyLeaseTests {

    private static final long LEASE_MILLIS = 5000;
    /** How late the grant's reply is handed to the client: far above the timing noise. */
    private static final long REPLY_DELAY_MILLIS = 1200;
    /** Timing noise allowed: the grant's and the release's trips to Redis, a loaded machine. */
    private static final long SLACK_MILLIS = 400;

    private static RedisServer redis;
    private final LateReplies late = new LateReplies();
    private ClientResources resources;
    private LockClient client;
    private String name;

    @BeforeAll
    static void startRedis() {
        redis = RedisServers.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.stop();
    }

    @BeforeEach
    void setUp() {
        resources = ClientResources.builder().nettyCustomizer(late).build();
        client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .commandTimeout(Duration.ofSeconds(5))
                .clientResources(resources)
                .build());
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> client.ping() != null);
        name = "late-reply:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        late.delayMillis = 0;
        client.close();
        resources.shutdown();
    }

    static Stream<Arguments> kinds() {
        return Stream.of(
                kind("reentrant", LockClient::getLock),
                kind("fair", LockClient::getFairLock),
                kind("fenced", LockClient::getFencedLock),
                kind("write", (client, name) -> client.getReadWriteLock(name).writeLock()));
    }

    /** The kinds with {@code renewLease} (a write lock has none). */
    static Stream<Arguments> renewableKinds() {
        return kinds().filter(kind -> !"write".equals(kind.get()[0]));
    }

    private static Arguments kind(String label, BiFunction<LockClient, String, RedisLock> lock) {
        return Arguments.of(label, lock);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void whenTheGrantsReplyCameLateThenReleasingAReentryKeepsRedisLease(
            String label, BiFunction<LockClient, String, RedisLock> kind) throws InterruptedException {
        RedisLock lock = kind.apply(client, name);
        long owner = RedisLock.newOwnerId();
        warm(kind, false);

        late.delayMillis = REPLY_DELAY_MILLIS;
        long sent = System.nanoTime();
        assertThat(lock.tryLock(0, LEASE_MILLIS, TimeUnit.MILLISECONDS, owner)).isTrue();
        late.delayMillis = 0;

        assertThat(lock.tryLock(0, 1000, TimeUnit.MILLISECONDS, owner))
                .as("re-entry")
                .isTrue();
        lock.unlock(owner);

        assertLeaseWithin(lock, sent);
        lock.unlock(owner);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("renewableKinds")
    void whenARenewalsReplyCameLateThenReleasingAReentryKeepsRedisLease(
            String label, BiFunction<LockClient, String, RedisLock> kind) throws InterruptedException {
        RedisLock lock = kind.apply(client, name);
        long owner = RedisLock.newOwnerId();
        warm(kind, true);
        assertThat(lock.tryLock(0, 1000, TimeUnit.MILLISECONDS, owner)).isTrue();

        late.delayMillis = REPLY_DELAY_MILLIS;
        long sent = System.nanoTime();
        assertThat(lock.renewLease(LEASE_MILLIS, TimeUnit.MILLISECONDS, owner)).isTrue();
        late.delayMillis = 0;

        assertThat(lock.tryLock(0, 1000, TimeUnit.MILLISECONDS, owner))
                .as("re-entry")
                .isTrue();
        lock.unlock(owner);

        assertLeaseWithin(lock, sent);
        lock.unlock(owner);
    }

    /**
     * Takes and releases a lock of the kind on another name: its scripts loaded and its classes too, so
     * that the grant timed next reaches Redis right after it is sent.
     */
    private void warm(BiFunction<LockClient, String, RedisLock> kind, boolean renewing) throws InterruptedException {
        RedisLock other = kind.apply(client, name + ":warm");
        long owner = RedisLock.newOwnerId();
        assertThat(other.tryLock(0, LEASE_MILLIS, TimeUnit.MILLISECONDS, owner)).isTrue();
        if (renewing) {
            assertThat(other.renewLease(LEASE_MILLIS, TimeUnit.MILLISECONDS, owner))
                    .isTrue();
        }
        other.unlock(owner);
    }

    /** Redis' lease began after {@code sent}: what is left of it now is at most the lease minus the time since. */
    private static void assertLeaseWithin(RedisLock lock, long sent) {
        long asked = System.nanoTime();
        long ttl = lock.remainTimeToLive();
        long left = LEASE_MILLIS - TimeUnit.NANOSECONDS.toMillis(asked - sent);
        assertThat(ttl)
                .as("lease left after the re-entry's release, against what Redis granted")
                .isPositive()
                .isLessThanOrEqualTo(left + SLACK_MILLIS);
    }

    /** Hands every reply to the client late while armed, in order, as a busy event loop does. */
    private static final class LateReplies implements NettyCustomizer {

        volatile long delayMillis;

        @Override
        public void afterChannelInitialized(Channel channel) {
            channel.pipeline().addFirst(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    long delay = delayMillis;
                    if (delay <= 0) {
                        ctx.fireChannelRead(msg);
                        return;
                    }
                    // Only the grant's reply is read while armed, and the caller waits for it before
                    // disarming: nothing can overtake it.
                    ctx.executor().schedule(() -> ctx.fireChannelRead(msg), delay, TimeUnit.MILLISECONDS);
                }
            });
        }
    }
}
