package dev.distlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The leader's process dies (SIGKILL, no unlock, no shutdown hook): its lock lapses one lease
 * later, and the candidate waiting in this JVM takes over within the lease plus a second, with a
 * newer fencing token than the dead leader's.
 */
@Tag("fault")
class LeaderProcessDeathTests {

    private static final RedisServer redis = RedisServers.shared();

    /** The watchdog timeout of both processes: the dead leader's lock lapses at most this long after. */
    private static final Duration LEASE = Duration.ofSeconds(2);

    @Test
    void whenTheLeadersProcessIsKilledThenAnotherCandidateLeadsWithinTheLeasePlusASecond() throws Exception {
        String role = "leader:" + UUID.randomUUID();
        try (ChildJvm child =
                        ChildJvm.start(LeaderCandidateMain.class, redis.uri(), role, Long.toString(LEASE.toMillis()));
                LeaderNode survivor = new LeaderNode(redis.uri(), LEASE, "survivor", role)) {
            long deadLeadersToken = Long.parseLong(child.expect("GRANTED", 60));
            assertThat(deadLeadersToken).isPositive();
            survivor.initiator.start();
            // The child renews its lock while alive: the survivor stays a follower across several leases.
            await().during(LEASE.multipliedBy(2)).atMost(LEASE.multipliedBy(5)).until(() -> !survivor.isLeader());

            child.kill();
            // A full lease at most (renewed just before the kill), plus a loaded machine's slack.
            await().atMost(LEASE.plusSeconds(3)).until(survivor::isLeader);
            assertThat(survivor.grants).hasSize(1);
            assertThat(survivor.lastToken()).isGreaterThan(deadLeadersToken);
        }
    }
}
