package dev.distlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.Lock;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * {@code tryLock()} without a wait, in both layouts of {@link DistlockLockRegistry}: as
 * {@link Lock#tryLock()} says, it takes the lock "only if it is free at the time of invocation", and
 * as Spring Integration's {@code RedisLockRegistry} does, it makes one attempt: one script call, no
 * subscription, whatever the answer. A second attempt made later could take a lock that was held
 * when the call began (its lease having ended meanwhile on a busy machine). Counted by the server
 * ({@code INFO commandstats}) on a server of this class's own, where nothing else runs.
 */
class NoWaitTryLockTests {

    private static RedisServer redis;

    /** The two layouts, as registries on a client of their own ("another process"). */
    enum Layout {
        DISTLOCK((client, registryKey) -> new DistlockLockRegistry(client)),
        SPRING_INTEGRATION(DistlockLockRegistry::compatibleWithSpringIntegrationRedis);

        final BiFunction<LockClient, String, DistlockLockRegistry> registry;

        Layout(BiFunction<LockClient, String, DistlockLockRegistry> registry) {
            this.registry = registry;
        }
    }

    private LockClient holderProcess;
    private LockClient otherProcess;
    private final String registryKey = "no-wait-" + UUID.randomUUID();

    @BeforeAll
    static void startServer() {
        redis = RedisServers.start();
    }

    @AfterAll
    static void stopServer() {
        redis.stop();
    }

    @BeforeEach
    void setUp() {
        holderProcess = LockClient.create(redis.uri());
        otherProcess = LockClient.create(redis.uri());
    }

    @AfterEach
    void tearDown() {
        holderProcess.close();
        otherProcess.close();
    }

    private static final Pattern COMMAND_STAT = Pattern.compile("cmdstat_([a-z_|]+):calls=(\\d+)");

    /** @return the calls of each command since the last {@code CONFIG RESETSTAT} */
    private static Map<String, Long> commandCalls() {
        Map<String, Long> calls = new HashMap<>();
        Matcher stat = COMMAND_STAT.matcher(redis.command("INFO", "commandstats"));
        while (stat.find()) {
            calls.put(stat.group(1), Long.parseLong(stat.group(2)));
        }
        return calls;
    }

    private static long scriptCalls(Map<String, Long> calls) {
        return calls.entrySet().stream()
                .filter(call ->
                        call.getKey().startsWith("eval") || call.getKey().startsWith("fcall"))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    private static long subscriptions(Map<String, Long> calls) {
        return calls.entrySet().stream()
                .filter(call ->
                        call.getKey().endsWith("subscribe") && !call.getKey().endsWith("unsubscribe"))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void whenTheLockIsHeldByAnotherProcessThenANoWaitTryLockMakesOneAttemptAndAnswersFalse(Layout layout)
            throws Exception {
        DistributedLock held = layout.registry.apply(holderProcess, registryKey).obtain("foo");
        // A fixed lease: no watchdog renews it while the calls are counted.
        assertThat(held.tryLock(Duration.ZERO, Duration.ofSeconds(10))).isTrue();
        Lock lock = layout.registry.apply(otherProcess, registryKey).obtain("foo");
        try {
            redis.command("CONFIG", "RESETSTAT");
            assertThat(lock.tryLock()).isFalse();
            Map<String, Long> calls = commandCalls();
            assertThat(scriptCalls(calls))
                    .as("script calls of one tryLock(): %s", calls)
                    .isEqualTo(1);
            assertThat(subscriptions(calls))
                    .as("subscriptions of one tryLock(): %s", calls)
                    .isZero();

            // The same for tryLock(0, unit), which Lock also defines as one attempt.
            redis.command("CONFIG", "RESETSTAT");
            assertThat(lock.tryLock(0, java.util.concurrent.TimeUnit.MILLISECONDS))
                    .isFalse();
            calls = commandCalls();
            assertThat(scriptCalls(calls))
                    .as("script calls of one tryLock(0, ms): %s", calls)
                    .isEqualTo(1);
            assertThat(subscriptions(calls))
                    .as("subscriptions of one tryLock(0, ms): %s", calls)
                    .isZero();
        } finally {
            held.unlock();
        }

        redis.command("CONFIG", "RESETSTAT");
        assertThat(lock.tryLock()).isTrue();
        Map<String, Long> calls = commandCalls();
        assertThat(scriptCalls(calls))
                .as("script calls of one tryLock() of a free lock: %s", calls)
                .isEqualTo(1);
        assertThat(subscriptions(calls)).isZero();
        lock.unlock();
    }
}
