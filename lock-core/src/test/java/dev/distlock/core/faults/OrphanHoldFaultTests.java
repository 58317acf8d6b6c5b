package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A hold Redis counts for an owner whose client knows of none (an orphan: a re-entry whose reply was
 * lost, or a release lost with a failover, as {@link FairOrphanHoldFaultTests} makes one) expires
 * with its lease. The owner's later acquisitions are fresh as far as its client knows: none may
 * count as a re-entry of the orphan, or each would push its lease out again and leave one hold
 * behind after its unlock, and while the owner keeps taking the lock nobody else ever gets it (a
 * Sentinel chaos run: a fair lock taken 15 times in a row by one owner in 32 s while five waiters
 * of other clients timed out).
 *
 * <p>The orphan is made by adding one hold to the owner's count in Redis (and, for a read hold, its
 * timeout key) while it holds the lock, then unlocking: Redis still counts one hold, the client none,
 * and the lock lives at most its lease or the watchdog timeout (both 3 s here) unless renewed.
 */
@Tag("fault")
class OrphanHoldFaultTests {

    private static final long LEASE_MILLIS = 3000;

    private static RedisServer redis;

    private LockClient owners;
    private LockClient others;
    private String name;

    @BeforeAll
    static void startRedis() {
        redis = RedisServers.shared();
    }

    @BeforeEach
    void setUp() {
        owners = client();
        others = client();
        name = "orphan:" + UUID.randomUUID();
    }

    /**
     * A client whose watchdog timeout is the lease used here: an unlock that leaves holds in Redis
     * keeps at least the watchdog timeout, in case the client has not booked a watchdog grant yet.
     */
    private static LockClient client() {
        return LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .watchdogTimeout(Duration.ofMillis(LEASE_MILLIS))
                .build());
    }

    @AfterEach
    void tearDown() {
        owners.close();
        others.close();
    }

    @ParameterizedTest
    @EnumSource(ContendedKind.class)
    void theOwnersFreshAcquisitionsDoNotKeepAnOrphanHoldAlive(ContendedKind kind) throws Exception {
        RedisLock lock = kind.lock(owners, name);
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(0, LEASE_MILLIS, TimeUnit.MILLISECONDS, owner)).isTrue();
        List<String> keys = orphanOneHold(kind);
        lock.unlock(owner);
        assertThat(keys)
                .allSatisfy(key -> assertThat(redis.command("EXISTS", key).trim())
                        .as("the orphan hold on %s", key)
                        .endsWith("1"));

        OwnerLoop ownerLoop = new OwnerLoop(lock, owner, LEASE_MILLIS, 200);
        try {
            RedisLock contender = kind.contender(others, name);
            long waiter = RedisLock.newOwnerId();
            // Bound by what happens, not by a clock: kept alive, the orphan keeps the contender out
            // however long it waits; left alone, it lapses within its 3 s lease.
            boolean got = contender.tryLock(20, 3, TimeUnit.SECONDS, waiter);
            assertThat(got)
                    .as(
                            "%s: another client gets the lock once the orphan's lease ran out, though the owner"
                                    + " took it %d times meanwhile",
                            kind, ownerLoop.taken())
                    .isTrue();
            contender.unlock(waiter);
        } finally {
            ownerLoop.close();
        }
    }

    /** Adds one hold to the owner's count on each lock key of the kind. @return those keys */
    private List<String> orphanOneHold(ContendedKind kind) {
        List<String> keys = kind == ContendedKind.MULTI ? List.of(name + ":x", name + ":y") : List.of(name);
        for (String key : keys) {
            List<String> fields = new ArrayList<>(
                    Arrays.asList(redis.command("HKEYS", key).trim().split("\\s+")));
            fields.removeIf(field -> field.isBlank() || field.equals("mode"));
            assertThat(fields).as("the owner's field on %s", key).hasSize(1);
            String field = fields.get(0).replace("\"", "");
            String count = redis.command("HINCRBY", key, field, "1").trim();
            if (kind == ContendedKind.READ) {
                // A read hold lives as long as its timeout key.
                redis.command(
                        "SET",
                        "{" + key + "}:" + field + ":rwlock_timeout:" + count.replaceAll("\\D", ""),
                        "1",
                        "PX",
                        Long.toString(LEASE_MILLIS));
            }
        }
        return keys;
    }
}
