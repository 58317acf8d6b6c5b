package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisSentinelGroup;
import dev.distlock.core.test.RedisServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A client whose connection stays open to a master that was demoted to a replica gets READONLY for
 * every lock script. It must go back to the sentinels and follow the new master, instead of failing
 * until the connection happens to break (the randomized fault harness saw 44 s of READONLY after a
 * master was restarted into the replica role before the sentinels noticed).
 */
@Tag("fault")
class SentinelDemotionFaultTests {

    @Test
    void whenTheMasterIsDemotedWhileConnectedThenAcquisitionsFollowTheNewMaster() throws Exception {
        try (RedisSentinelGroup group = RedisSentinelGroup.start();
                LockClient client = LockClient.create(LockClientOptions.builder()
                        .sentinel(RedisSentinelGroup.MASTER_ID, group.sentinelUris())
                        .commandTimeout(Duration.ofSeconds(1))
                        .build())) {
            RedisLock before = client.getLock("demotion-before");
            assertThat(before.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
            before.unlock();
            RedisServer oldMaster = group.master();
            RedisServer newMaster = group.replica();

            // The master is demoted in place and our connection to it stays open (a manual SENTINEL
            // FAILOVER would kill its clients; a server restarted into the replica role before the
            // sentinels notice does not). Then the sentinels are told of the new master; nothing
            // touches the client's connection.
            newMaster.command("REPLICAOF", "NO", "ONE");
            oldMaster.command("REPLICAOF", newMaster.host(), Integer.toString(newMaster.port()));
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> oldMaster.command("ROLE").startsWith("slave"));
            group.repointSentinels(newMaster);
            assertThat(group.currentMasterPort()).isEqualTo(newMaster.port());

            RedisLock after = client.getLock("demotion-after");
            // Awaitility polls on its own thread: an explicit owner keeps the hold ours to unlock.
            long owner = RedisLock.newOwnerId();
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        boolean acquired;
                        try {
                            acquired = after.tryLock(0, 10, TimeUnit.SECONDS, owner);
                        } catch (LockException ex) {
                            throw new AssertionError("tryLock failed after the failover: " + ex.getMessage(), ex);
                        }
                        assertThat(acquired).as("acquired on the new master").isTrue();
                    });
            after.unlock(owner);
        }
    }
}
