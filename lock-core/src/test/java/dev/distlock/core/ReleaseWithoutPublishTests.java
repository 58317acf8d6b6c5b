package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A release whose announcement Redis refuses (channel permission revoked) has still released the
 * lock: the unlock must succeed, not report a lease loss for a lock it did release.
 */
@Tag("fault")
class ReleaseWithoutPublishTests {

    private static RedisServer redis;
    private final List<String> lost = new CopyOnWriteArrayList<>();
    private LockClient client;

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
        redis.command("FLUSHALL");
        client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .listener(new LockListener() {
                    @Override
                    public void onLeaseLost(String lockName, long ownerId) {
                        lost.add(lockName);
                    }
                })
                .build());
    }

    @AfterEach
    void tearDown() {
        redis.command("ACL", "SETUSER", "default", "allchannels");
        client.close();
    }

    private RedisLock lock(String kind) {
        Function<String, RedisLock> of =
                switch (kind) {
                    case "fenced" -> client::getFencedLock;
                    case "fair" -> client::getFairLock;
                    case "read" -> name -> client.getReadWriteLock(name).readLock();
                    case "write" -> name -> client.getReadWriteLock(name).writeLock();
                    default -> client::getLock;
                };
        return of.apply("unannounced-" + kind);
    }

    @ParameterizedTest
    @ValueSource(strings = {"reentrant", "fenced", "fair", "read", "write"})
    void whenPublishingIsRefusedThenUnlockStillReleasesWithoutReportingALoss(String kind) throws Exception {
        RedisLock lock = lock(kind);
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS, owner)).isTrue();
        redis.command("ACL", "SETUSER", "default", "resetchannels");

        assertThatCode(() -> lock.unlock(owner))
                .as("unlock while PUBLISH is refused")
                .doesNotThrowAnyException();

        assertThat(lock.isLocked()).as("lock released").isFalse();
        assertThat(lost).as("lease-loss reports").isEmpty();
        assertThat(lock.forceUnlock()).as("nothing left to force-unlock").isFalse();
    }
}
