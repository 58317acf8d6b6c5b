package dev.distlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Leader election by Spring Integration's {@link LockRegistryLeaderInitiator} over
 * {@link DistlockLockRegistry}: the cases of Spring Integration's
 * {@code LockRegistryLeaderInitiatorTests} and {@code RedisLockRegistryLeaderInitiatorTests} that
 * apply to a real registry, in our own words, with each candidate a process of its own (a
 * {@link LeaderNode} on its own client). The leader dying with its process is
 * {@link LeaderProcessDeathTests}; docs/spring-integration.md lists the cases that do not apply.
 */
class LeaderElectionTests {

    private static final RedisServer redis = RedisServers.shared();

    /** The watchdog timeout of every node: how long a lock outlives a holder that stopped renewing it. */
    private static final Duration LEASE = Duration.ofSeconds(2);

    private final String role = "leader:" + UUID.randomUUID();
    private final List<LeaderNode> nodes = new ArrayList<>();

    @AfterEach
    void stopNodes() {
        nodes.forEach(LeaderNode::close);
    }

    private LeaderNode node(String id) {
        LeaderNode node = new LeaderNode(redis.uri(), LEASE, id, role);
        nodes.add(node);
        return node;
    }

    private List<LeaderNode> leaders() {
        return nodes.stream().filter(LeaderNode::isLeader).toList();
    }

    /** The one leader, once the stopped nodes have seen their revocation (it comes on their own thread). */
    private LeaderNode awaitOneLeader(Duration atMost, LeaderNode... stopped) {
        List<LeaderNode> notAmong = List.of(stopped);
        await().atMost(atMost).until(() -> {
            List<LeaderNode> now = leaders();
            return now.size() == 1 && !notAmong.contains(now.get(0));
        });
        return leaders().get(0);
    }

    private void assertLeadsAlone(LeaderNode leader) {
        // Several heartbeats: the leader takes its lock again each time, the others keep failing.
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(10)).until(() -> leaders()
                .equals(List.of(leader)));
    }

    @Test
    void whenCandidatesCompeteThenOneLeadsAtATimeAndAnotherTakesOverWhenItStops() {
        for (int i = 0; i < 3; i++) {
            node("node-" + i).initiator.start();
        }
        LeaderNode first = awaitOneLeader(Duration.ofSeconds(30));
        assertLeadsAlone(first);
        assertThat(first.grants).hasSize(1);

        first.initiator.stop();
        // Stopping unlocks: the next candidate is woken at once, well within the lease plus a second.
        LeaderNode second = awaitOneLeader(LEASE.plusSeconds(1), first);
        assertThat(first.revocations).hasValue(1);
        assertLeadsAlone(second);
        assertThat(second.lastToken()).isGreaterThan(first.lastToken());

        second.initiator.stop();
        LeaderNode third = awaitOneLeader(LEASE.plusSeconds(1), first, second);
        assertThat(third.lastToken()).isGreaterThan(second.lastToken());
        third.initiator.stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> leaders().isEmpty());
        assertThat(redis.command("EXISTS", role).trim()).isEqualTo("0");
    }

    @Test
    void whenTheLeaderYieldsThenAnotherLeadsAndTheFirstCanLeadAgain() {
        LeaderNode a = node("a");
        LeaderNode b = node("b");
        a.initiator.start();
        await().atMost(Duration.ofSeconds(30)).until(a::isLeader);
        b.initiator.start();
        assertLeadsAlone(a);

        // A yielding candidate waits its busy-wait before competing again: long enough for the other to win.
        a.initiator.setBusyWaitMillis(3000);
        a.initiator.getContext().yield();
        await().atMost(LEASE.plusSeconds(1)).until(() -> leaders().equals(List.of(b)));
        assertThat(a.revocations).hasValue(1);
        assertThat(b.lastToken()).isGreaterThan(a.lastToken());

        a.initiator.setBusyWaitMillis(LockRegistryLeaderInitiator.DEFAULT_BUSY_WAIT_TIME);
        b.initiator.setBusyWaitMillis(3000);
        b.initiator.getContext().yield();
        await().atMost(Duration.ofSeconds(10)).until(() -> leaders().equals(List.of(a)));
        assertThat(b.revocations).hasValue(1);
        assertThat(a.grants).hasSize(2);
        assertThat(a.lastToken()).isGreaterThan(b.lastToken());
    }

    @Test
    void whenTheLeaderLosesItsLeaseThenItIsRevokedAndLeadsAgainLaterWithANewerToken() {
        LeaderNode a = node("a");
        LeaderNode b = node("b");
        a.initiator.start();
        await().atMost(Duration.ofSeconds(30)).until(a::isLeader);
        b.initiator.start();
        assertLeadsAlone(a);

        // A lease shorter than the heartbeat: the leader's lock lapses between two heartbeats and
        // the waiting candidate, woken when the lease ends, takes it long before the next one.
        a.registry.setLeaseTime(Duration.ofMillis(300));
        a.initiator.setHeartBeatMillis(1500);
        await().atMost(Duration.ofSeconds(10)).until(() -> leaders().equals(List.of(b)));
        assertThat(a.revocations).hasValue(1);
        assertThat(b.lastToken()).isGreaterThan(a.lastToken());

        // The old leader never unlocked its lost hold; elected again, it holds a new one.
        a.registry.setLeaseTime(null);
        a.initiator.setHeartBeatMillis(LockRegistryLeaderInitiator.DEFAULT_HEART_BEAT_TIME);
        b.initiator.stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> leaders().equals(List.of(a)));
        assertThat(a.grants).hasSize(2);
        assertThat(a.lastToken()).isGreaterThan(b.lastToken());
        assertThat(a.registry.getFencingToken(role)).hasValue(a.lastToken());
        a.initiator.stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> !a.isLeader());
        assertThat(redis.command("EXISTS", role).trim()).isEqualTo("0");
        assertThat(a.registry.getFencingToken(role)).isEmpty();
    }

    @Test
    void whenFailedAttemptsArePublishedThenTheWaitingCandidateHearsThemAndLeadsOnceTheLeaderStops() throws Exception {
        LeaderNode leader = node("leader");
        LeaderNode waiting = node("waiting");
        CountDownLatch failed = new CountDownLatch(2);
        CountDownLatch granted = new CountDownLatch(1);
        waiting.initiator.setLeaderEventPublisher(new Events(granted, failed));
        waiting.initiator.setPublishFailedEvents(true);
        leader.initiator.start();
        await().atMost(Duration.ofSeconds(30)).until(leader::isLeader);
        waiting.initiator.start();
        assertThat(failed.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(waiting.isLeader()).isFalse();
        leader.initiator.stop();
        assertThat(granted.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(waiting.isLeader()).isTrue();
    }

    @Test
    void whenTheEventPublisherFailsThenLeadershipIsGrantedAnyway() throws Exception {
        LeaderNode node = node("only");
        CountDownLatch published = new CountDownLatch(1);
        node.initiator.setLeaderEventPublisher(new Events(new CountDownLatch(1), new CountDownLatch(1)) {
            @Override
            public void publishOnGranted(Object source, Context context, String role) {
                published.countDown();
                throw new IllegalStateException("publisher failed on purpose");
            }
        });
        node.initiator.start();
        assertThat(published.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(node.isLeader()).isTrue();
        assertLeadsAlone(node);
        assertThat(node.grants).hasSize(1);
    }

    /** Counts the initiator's events. */
    private static class Events implements LeaderEventPublisher {

        private final CountDownLatch granted;
        private final CountDownLatch failedToAcquire;

        Events(CountDownLatch granted, CountDownLatch failedToAcquire) {
            this.granted = granted;
            this.failedToAcquire = failedToAcquire;
        }

        @Override
        public void publishOnGranted(Object source, Context context, String role) {
            granted.countDown();
        }

        @Override
        public void publishOnRevoked(Object source, Context context, String role) {}

        @Override
        public void publishOnFailedToAcquire(Object source, Context context, String role) {
            failedToAcquire.countDown();
        }
    }
}
