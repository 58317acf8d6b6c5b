package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisSentinelGroup;
import dev.distlock.core.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fencing tokens across an asynchronous Sentinel failover in which the master lost its replica
 * before it died: whatever the master drew alone is unknown to the promoted replica. Without
 * {@code replicaSync} the new master hands such a token out a second time (docs/topologies.md
 * says so); with it a token is handed out only once a replica has its counter, so the tokens a
 * caller receives keep increasing.
 */
@Tag("fault")
class SentinelFencingFaultTests {

    private final String run = UUID.randomUUID().toString();

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void whenReplicaSyncIsOnThenTokensHandedOutKeepIncreasingAcrossAFailoverThatLostTheMastersLastWrite()
            throws Exception {
        try (RedisSentinelGroup group = RedisSentinelGroup.start();
                LockClient client = LockClient.create(LockClientOptions.builder()
                        .sentinel(RedisSentinelGroup.MASTER_ID, group.sentinelUris())
                        .commandTimeout(Duration.ofSeconds(1))
                        .replicaSync(1, Duration.ofMillis(500))
                        .build())) {
            FencedLock lock = client.getFencedLock("fenced-failover-" + run);
            List<Long> handedOut = new ArrayList<>();
            handedOut.add(drawToken(lock));

            RedisServer master = group.master();
            RedisServer replica = group.replica();
            isolateReplica(master, replica);
            // The master alone would draw the next token: the guard refuses to hand it out.
            assertThatThrownBy(() -> lock.tryLockAndGetToken(0, 30, TimeUnit.SECONDS))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("replicas");

            master.stop();
            replica.resume();
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> group.currentMasterPort() == replica.port());
            // The guard needs a replica again: the old master comes back empty and is made a replica of
            // the new one, as an operator would. The sentinels would do it too, but only after several
            // INFO periods, and not at all while a loaded machine keeps them in TILT mode.
            master.start();
            master.command("REPLICAOF", replica.host(), Integer.toString(replica.port()));
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> replica.command("INFO", "replication").contains("connected_slaves:1"));
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(200))
                    .ignoreException(LockException.class)
                    .until(() -> handedOut.add(drawToken(lock)));

            System.out.println("[fault] fencing tokens handed out across the failover: " + handedOut);
            assertThat(handedOut).as("tokens handed out, in order").hasSize(2);
            assertThat(handedOut.get(1)).as("token after the failover").isGreaterThan(handedOut.get(0));
        }
    }

    /** @return the token of an acquisition, released again at once */
    private static long drawToken(FencedLock lock) throws InterruptedException {
        long owner = RedisLock.newOwnerId();
        OptionalLong token = lock.tryLockAndGetToken(0, 30, TimeUnit.SECONDS, owner);
        assertThat(token).as("acquired").isPresent();
        lock.unlock(owner);
        return token.getAsLong();
    }

    /**
     * Freezes the replica until the master drops it, as a master does with a replica that stopped
     * acknowledging ({@code repl-timeout}): from then on the master writes alone.
     */
    private static void isolateReplica(RedisServer master, RedisServer replica) {
        master.command("CONFIG", "SET", "repl-timeout", "1");
        replica.pause();
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> master.command("INFO", "replication").contains("connected_slaves:0"));
    }
}
