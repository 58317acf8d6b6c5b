package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The asynchronous API of {@link MultiLock}, over members on two servers. The tests of a caller
 * that gives up while it holds some members and waits for others use a fenced member, which keeps
 * the multi lock on the member-by-member path; plain reentrant members are taken one script per
 * server, and such a caller holds nothing while it waits.
 */
class MultiLockAsyncTests {

    private static RedisServer second;
    private static LockClient one;
    private static LockClient two;
    private static LockClient other;

    @BeforeAll
    static void startClients() {
        second = RedisServers.start();
        one = LockClient.create(RedisServers.shared().uri());
        two = LockClient.create(second.uri());
        other = LockClient.create(RedisServers.shared().uri());
    }

    @AfterAll
    static void stopClients() {
        one.close();
        two.close();
        other.close();
        second.stop();
    }

    private static String unique(String name) {
        return name + "-" + UUID.randomUUID();
    }

    private static boolean holdsNothing(LockClient client, long owner) {
        return client.heldLocks().stream().noneMatch(held -> held.ownerId() == owner);
    }

    @Test
    void whenAcquiredAsynchronouslyThenEveryMemberIsHeldAndReleased() throws Exception {
        String a = unique("a");
        String b = unique("b");
        MultiLock multi = MultiLock.of(one.getLock(a), two.getLock(b));
        long owner = RedisLock.newOwnerId();
        assertThat(multi.tryLockAsync(1, 10, TimeUnit.SECONDS, owner)
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS))
                .isTrue();
        assertThat(one.getLock(a).isHeldBy(owner)).isTrue();
        assertThat(two.getLock(b).isHeldBy(owner)).isTrue();
        assertThat(other.getLock(a).tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                .isFalse();
        multi.unlockAsync(owner).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(one.getLock(a).isLocked()).isFalse();
        assertThat(two.getLock(b).isLocked()).isFalse();
        assertThat(holdsNothing(one, owner) && holdsNothing(two, owner)).isTrue();
    }

    @Test
    void whenMembersAreHeldElsewhereThenTryLockAsyncCompletesFalseWithinItsWaitAndTakesNothing() throws Exception {
        String a = unique("a");
        String b = unique("b");
        long stranger = RedisLock.newOwnerId();
        assertThat(other.getLock(b).tryLock(0, 30, TimeUnit.SECONDS, stranger)).isTrue();
        MultiLock multi = MultiLock.of(one.getLock(a), one.getLock(b));
        long owner = RedisLock.newOwnerId();
        long start = System.nanoTime();
        assertThat(multi.tryLockAsync(300, 10_000, TimeUnit.MILLISECONDS, owner)
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS))
                .isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isBetween(Duration.ofMillis(250), Duration.ofSeconds(3));
        assertThat(one.getLock(a).isLocked()).isFalse();
        assertThat(holdsNothing(one, owner)).isTrue();
        other.getLock(b).unlock(stranger);
    }

    @Test
    void whenContendedAsyncWaitersThenEachIsWokenAndHoldsTheLockAlone() throws Exception {
        String a = unique("a");
        String b = unique("b");
        long blocker = RedisLock.newOwnerId();
        assertThat(other.getLock(b).tryLock(0, 30, TimeUnit.SECONDS, blocker)).isTrue();
        MultiLock multi = MultiLock.of(one.getLock(a), two.getLock(b));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long owner = RedisLock.newOwnerId();
            waiters.add(multi.lockAsync(10, TimeUnit.SECONDS, owner)
                    .thenCompose(locked -> {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        inside.decrementAndGet();
                        return multi.unlockAsync(owner);
                    })
                    .toCompletableFuture());
        }
        other.getLock(b).unlock(blocker);
        dev.distlock.core.test.Progress.awaitAll("the waiters' hand-offs", waiters, Duration.ofSeconds(30));
        assertThat(overlaps).hasValue(0);
        assertThat(multi.isLocked()).isFalse();
    }

    @Test
    void whenAWaitingAcquisitionIsCancelledThenTheMembersItTookAreReleased() throws Exception {
        String a = unique("a");
        String b = unique("b");
        long blocker = RedisLock.newOwnerId();
        assertThat(two.getLock(b).tryLock(0, 30, TimeUnit.SECONDS, blocker)).isTrue();
        MultiLock multi = MultiLock.of(one.getFencedLock(a), two.getLock(b));
        long owner = RedisLock.newOwnerId();
        CompletableFuture<Void> waiting =
                multi.lockAsync(-1, TimeUnit.MILLISECONDS, owner).toCompletableFuture();
        // It takes A, then waits for B.
        await().atMost(Duration.ofSeconds(10)).until(() -> one.getLock(a).isHeldBy(owner));
        assertThat(waiting.cancel(false)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> !one.getLock(a).isLocked() && holdsNothing(one, owner));
        // Nothing of the abandoned acquisition comes back for A in later rounds.
        await().during(Duration.ofSeconds(4))
                .atMost(Duration.ofSeconds(8))
                .until(() -> !one.getLock(a).isLocked() && holdsNothing(one, owner));
        assertThat(two.getLock(b).isHeldBy(blocker)).isTrue();
        two.getLock(b).unlock(blocker);
    }

    // The member's own cancel must abandon its wait for B; the interim single-key async methods run
    // the blocking wait on another thread, which a cancel does not stop, so B is taken once freed.
    @Test
    void whenAWaitingAcquisitionIsCancelledThenTheMemberItWaitedForIsNotTakenOnceFree() throws Exception {
        String a = unique("a");
        String b = unique("b");
        long blocker = RedisLock.newOwnerId();
        assertThat(two.getLock(b).tryLock(0, 30, TimeUnit.SECONDS, blocker)).isTrue();
        MultiLock multi = MultiLock.of(one.getFencedLock(a), two.getLock(b));
        long owner = RedisLock.newOwnerId();
        CompletableFuture<Void> waiting =
                multi.lockAsync(-1, TimeUnit.MILLISECONDS, owner).toCompletableFuture();
        await().atMost(Duration.ofSeconds(10)).until(() -> one.getLock(a).isHeldBy(owner));
        assertThat(waiting.cancel(false)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> !one.getLock(a).isLocked() && holdsNothing(one, owner));
        two.getLock(b).unlock(blocker);
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(5))
                .until(() -> !one.getLock(a).isLocked()
                        && !two.getLock(b).isLocked()
                        && holdsNothing(one, owner)
                        && holdsNothing(two, owner));
    }

    @Test
    void whenABlockingWaiterIsInterruptedThenItThrowsAndReleasesTheMembersItTook() throws Exception {
        String a = unique("a");
        String b = unique("b");
        long blocker = RedisLock.newOwnerId();
        assertThat(two.getLock(b).tryLock(0, 30, TimeUnit.SECONDS, blocker)).isTrue();
        MultiLock multi = MultiLock.of(one.getFencedLock(a), two.getLock(b));
        long owner = RedisLock.newOwnerId();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                outcome.complete(new AssertionError("acquired: " + multi.tryLock(20, 10, TimeUnit.SECONDS, owner)));
            } catch (Throwable ex) {
                outcome.complete(ex);
            }
        });
        waiter.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> one.getLock(a).isHeldBy(owner));
            waiter.interrupt();
            assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> !one.getLock(a).isLocked() && holdsNothing(one, owner));
        } finally {
            waiter.interrupt();
            waiter.join(10_000);
            two.getLock(b).unlock(blocker);
        }
    }

    // As above, through the blocking layer: the interrupt cancels the acquisition, whose member
    // wait for B must end with it. Before the blocking methods waited on the async ones, the
    // member's wait ran on the interrupted thread itself.
    @Test
    void whenABlockingWaiterIsInterruptedThenTheMemberItWaitedForIsNotTakenOnceFree() throws Exception {
        String a = unique("a");
        String b = unique("b");
        long blocker = RedisLock.newOwnerId();
        assertThat(two.getLock(b).tryLock(0, 3, TimeUnit.SECONDS, blocker)).isTrue();
        MultiLock multi = MultiLock.of(one.getFencedLock(a), two.getLock(b));
        long owner = RedisLock.newOwnerId();
        Thread waiter = new Thread(() -> {
            try {
                multi.tryLock(20, 10, TimeUnit.SECONDS, owner);
            } catch (InterruptedException ex) {
                // Expected: the wait was interrupted.
            }
        });
        waiter.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> one.getLock(a).isHeldBy(owner));
            waiter.interrupt();
            // B's 3 s lease runs out within the 20 s wait: the interrupted wait must not take it then.
            await().during(Duration.ofSeconds(4))
                    .atMost(Duration.ofSeconds(8))
                    .until(() ->
                            !one.getLock(a).isLocked() && !two.getLock(b).isHeldBy(owner) && holdsNothing(two, owner));
        } finally {
            waiter.join(10_000);
        }
    }

    // Each waiting acquisition waits in a member's async call; the interim single-key async methods
    // run the blocking wait on a thread of its own, so this passes only once members wait without one.
    @Test
    void whenManyAsyncAcquisitionsWaitThenTheThreadCountDoesNotGrowWithThem() throws Exception {
        String prefix = unique("threads");
        RedisLock first = one.getLock(prefix + "-a");
        RedisLock last = two.getLock(prefix + "-b");
        MultiLock multi = MultiLock.of(first, last);
        long warmUp = RedisLock.newOwnerId();
        // Connections, subscriptions and timers exist before counting.
        assertThat(multi.tryLockAsync(5, 10, TimeUnit.SECONDS, warmUp)
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS))
                .isTrue();
        multi.unlock(warmUp);
        long blocker = RedisLock.newOwnerId();
        assertThat(other.getLock(prefix + "-a").tryLock(0, 60, TimeUnit.SECONDS, blocker))
                .isTrue();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int before = threads.getThreadCount();
        List<CompletableFuture<Boolean>> waiting = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            waiting.add(multi.tryLockAsync(10, 10, TimeUnit.SECONDS, RedisLock.newOwnerId())
                    .toCompletableFuture());
        }
        try {
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                assertThat(waiting).noneMatch(CompletableFuture::isDone);
                assertThat(threads.getThreadCount() - before)
                        .as("threads added by 200 waiting acquisitions")
                        .isLessThan(20);
            });
        } finally {
            waiting.forEach(future -> future.cancel(false));
            other.getLock(prefix + "-a").unlock(blocker);
        }
        await().atMost(Duration.ofSeconds(15))
                .until(() -> !first.isLocked()
                        && !last.isLocked()
                        && one.heldLocks().isEmpty()
                        && two.heldLocks().isEmpty());
    }

    @Test
    void whenAWaitingBatchedAcquisitionIsCancelledThenItHoldsNothingThenOrOnceFree() throws Exception {
        String a = unique("a");
        String b = unique("b");
        long blocker = RedisLock.newOwnerId();
        assertThat(other.getLock(b).tryLock(0, 30, TimeUnit.SECONDS, blocker)).isTrue();
        MultiLock multi = MultiLock.of(one.getLock(a), one.getLock(b));
        long owner = RedisLock.newOwnerId();
        CompletableFuture<Void> waiting =
                multi.lockAsync(-1, TimeUnit.MILLISECONDS, owner).toCompletableFuture();
        // One script takes both members or neither: while B is held, A is never taken.
        await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(3))
                .until(() -> !waiting.isDone() && !one.getLock(a).isLocked());
        assertThat(waiting.cancel(false)).isTrue();
        other.getLock(b).unlock(blocker);
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(5))
                .until(() -> !one.getLock(a).isLocked() && !one.getLock(b).isLocked() && holdsNothing(one, owner));
    }

    @Test
    void whenABlockingBatchedWaiterIsInterruptedThenItThrowsAndNothingIsTakenOnceFree() throws Exception {
        String a = unique("a");
        String b = unique("b");
        long blocker = RedisLock.newOwnerId();
        assertThat(other.getLock(b).tryLock(0, 3, TimeUnit.SECONDS, blocker)).isTrue();
        MultiLock multi = MultiLock.of(one.getLock(a), one.getLock(b));
        long owner = RedisLock.newOwnerId();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                outcome.complete(new AssertionError("acquired: " + multi.tryLock(20, 10, TimeUnit.SECONDS, owner)));
            } catch (Throwable ex) {
                outcome.complete(ex);
            }
        });
        waiter.start();
        try {
            await().during(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> !outcome.isDone() && !one.getLock(a).isLocked());
            waiter.interrupt();
            assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
            // B's 3 s lease runs out within the 20 s wait: the interrupted wait must not take it then.
            await().during(Duration.ofSeconds(4))
                    .atMost(Duration.ofSeconds(8))
                    .until(() ->
                            !one.getLock(a).isLocked() && !one.getLock(b).isHeldBy(owner) && holdsNothing(one, owner));
        } finally {
            waiter.interrupt();
            waiter.join(10_000);
        }
    }

    @Test
    void whenArgumentsAreBadThenAsyncMethodsThrowAtCallTimeNamingThem() {
        MultiLock multi = MultiLock.of(one.getLock(unique("a")), two.getLock(unique("b")));
        long owner = RedisLock.newOwnerId();
        assertThatIllegalArgumentException()
                .isThrownBy(() -> multi.tryLockAsync(1, 0, TimeUnit.SECONDS, owner))
                .withMessageContaining("'leaseTime'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> multi.lockAsync(-5, TimeUnit.SECONDS, owner))
                .withMessageContaining("'leaseTime'");
    }
}
