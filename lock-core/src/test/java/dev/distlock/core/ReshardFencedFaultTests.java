package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisCluster;
import dev.distlock.core.test.SlotMigration;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A live slot migration that has not yet moved a fenced lock's token counter must not restart the
 * count: a free lock's hash is absent on the migrating node, so its acquire is sent on to the
 * importing node, where a counter the script did not declare is absent too. Found by the chaos
 * harness on a Cluster (token 7 handed to two owners after a reshard).
 */
@Tag("fault")
class ReshardFencedFaultTests {

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

    /** @return the token, {@code -1} when refused, {@code -2} when the call failed (Redis refused to decide) */
    private static long attempt(FencedLock lock) {
        try {
            OptionalLong token = lock.tryLockAndGetToken(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId());
            return token.orElse(-1);
        } catch (LockException ex) {
            return -2;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return -3;
        }
    }

    @Test
    void whenTheTokenCounterHasNotMovedYetThenNoTokenIsHandedOutAgain() throws Exception {
        String name = "reshard-fenced-" + UUID.randomUUID();
        try (LockClient client = LockClient.create(
                LockClientOptions.builder().cluster(cluster.uris()).build())) {
            FencedLock lock = client.getFencedLock(name);
            long owner = RedisLock.newOwnerId();
            long drawn = 0;
            for (int i = 0; i < 3; i++) {
                drawn = lock.tryLockAndGetToken(0, 10, TimeUnit.SECONDS, owner).orElseThrow();
                lock.unlock(owner);
            }
            long last = drawn;

            // The lock is free, so only its token counter is left to move.
            SlotMigration migration = SlotMigration.begin(cluster, name, cluster.otherMasterThan(name));
            assertThat(migration.keysOnSource()).as("keys left to move").isNotEmpty();
            long during = attempt(lock);
            assertThat(during)
                    .as("a token drawn while the counter is still on the migrating node (last was %d)", last)
                    .satisfiesAnyOf(token -> assertThat(token).isGreaterThan(last), token -> assertThat(token)
                            .isNegative());
            migration.finish();

            long after = lock.tryLockAndGetToken(0, 10, TimeUnit.SECONDS, owner).orElseThrow();
            assertThat(after).as("the token after the move").isGreaterThan(Math.max(last, during));
            lock.unlock(owner);
        }
    }
}
