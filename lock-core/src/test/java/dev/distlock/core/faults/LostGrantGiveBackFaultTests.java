package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A grant whose reply timed out is given back, on every lock kind. Redis is frozen with
 * {@code DEBUG SLEEP} while an acquire script waits in the connection; the client's command timeout
 * fails the call long before Redis wakes and runs the script, which grants the lock to nobody who
 * knows it. The caller that gave up must give that grant back, so that another client gets in long
 * before the grant's lease (20 s, or the watchdog's 30 s, never renewed) ends.
 */
@Tag("fault")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LostGrantGiveBackFaultTests {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
    /** How long Redis stays frozen: three command timeouts. */
    private static final String FREEZE_SECONDS = "1.5";
    /** Far below the grant's lease: only a give-back lets the contender in this soon. */
    private static final Duration GIVE_BACK_WITHIN = Duration.ofSeconds(10);

    private static RedisServer redis;

    private LockClient clientA;
    private LockClient clientB;
    private ExecutorService freezer;
    private String name;

    @BeforeAll
    static void startRedis() {
        redis = RedisServers.startAnsweringDebug();
    }

    @AfterAll
    static void stopRedis() {
        redis.stop();
    }

    @BeforeEach
    void setUp() {
        clientA = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .commandTimeout(COMMAND_TIMEOUT)
                .build());
        clientB = LockClient.create(redis.uri());
        freezer = Executors.newSingleThreadExecutor();
        name = "lost-grant:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        freezer.shutdownNow();
        clientA.close();
        clientB.close();
    }

    @ParameterizedTest
    @EnumSource(value = ContendedKind.class, mode = EnumSource.Mode.EXCLUDE, names = "MULTI")
    void whenAnExplicitLeaseGrantsReplyTimesOutThenTheGrantIsGivenBack(ContendedKind kind) throws Exception {
        grantWhileFrozenThenGiveBack(kind, 20);
    }

    @ParameterizedTest
    @EnumSource(value = ContendedKind.class, mode = EnumSource.Mode.EXCLUDE, names = "MULTI")
    void whenAWatchdogGrantsReplyTimesOutThenTheGrantIsGivenBack(ContendedKind kind) throws Exception {
        grantWhileFrozenThenGiveBack(kind, RedisLock.WATCHDOG_LEASE);
    }

    private void grantWhileFrozenThenGiveBack(ContendedKind kind, long leaseSeconds) throws Exception {
        RedisLock lock = kind.lock(clientA, name);
        RedisLock contender = kind.contender(clientB, name);
        long owner = RedisLock.newOwnerId();
        // Explicit: Awaitility polls on a thread of its own.
        long other = RedisLock.newOwnerId();
        warmUp(kind);

        Future<String> frozen = freezer.submit(() -> redis.command("DEBUG", "SLEEP", FREEZE_SECONDS));
        // The sleep must have started: the acquire script then waits in the connection until Redis wakes.
        Thread.sleep(200);
        long start = System.nanoTime();
        boolean[] acquired = new boolean[1];
        Throwable failure = catchThrowable(() -> acquired[0] = lock.tryLock(0, leaseSeconds, TimeUnit.SECONDS, owner));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(frozen.get(10, TimeUnit.SECONDS)).as("the freeze").endsWith("OK");

        assertThat(tookMillis)
                .as("the acquire gave up at its command timeout, before Redis woke")
                .isLessThan(1200);
        if (failure != null) {
            assertThat(failure).as("the timed-out acquire").isInstanceOf(LockException.class);
        } else {
            assertThat(acquired[0])
                    .as("an acquire answered while Redis was frozen")
                    .isFalse();
        }

        await().atMost(GIVE_BACK_WITHIN)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> contender.tryLock(0, 30, TimeUnit.SECONDS, other));
        assertThat(lock.isHeldBy(owner))
                .as("the owner that gave up holds nothing")
                .isFalse();
        contender.unlock(other);

        // The owner's bookkeeping is clean: it takes and releases the lock as usual afterwards.
        assertThat(lock.tryLock(0, 20, TimeUnit.SECONDS, owner))
                .as("the owner again")
                .isTrue();
        lock.unlock(owner);
        assertThat(lock.isHeldBy(owner)).as("released by one unlock").isFalse();
    }

    /**
     * Loads the kind's acquire script on the server through client A, so that the frozen attempt is
     * the script itself and not an {@code EVALSHA} answered {@code NOSCRIPT}. The hold is left to
     * expire: the release script stays unloaded, as after a restart. Retried: on a loaded machine
     * the first calls of a client with a 500 ms command timeout may time out while it connects.
     */
    private void warmUp(ContendedKind kind) {
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> clientA.ping() != null && clientB.ping() != null);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> kind.lock(
                        clientA, name + ":warm-up:" + UUID.randomUUID())
                .tryLock(0, 1, TimeUnit.SECONDS, RedisLock.newOwnerId()));
    }
}
