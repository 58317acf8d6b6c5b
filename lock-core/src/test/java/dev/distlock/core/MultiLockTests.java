package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class MultiLockTests {

    private static RedisServer second;
    private static LockClient one;
    private static LockClient two;
    private static LockClient other;

    @BeforeAll
    static void startClients() {
        second = RedisServers.start();
        one = LockClient.create(LockClientOptions.builder()
                .uri(RedisServers.shared().uri())
                .watchdogTimeout(Duration.ofSeconds(1))
                .build());
        two = LockClient.create(LockClientOptions.builder()
                .uri(second.uri())
                .watchdogTimeout(Duration.ofSeconds(1))
                .build());
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

    @Test
    void whenTheReleaseOfMembersSentInOneScriptFailsThenTheCallerGetsTheLockException() throws Exception {
        MultiLock multi = MultiLock.of(two.getLock(unique("a")), two.getLock(unique("b")));
        long owner = RedisLock.newOwnerId();
        assertThat(multi.tryLock(0, 30, TimeUnit.SECONDS, owner)).isTrue();
        second.command("ACL", "SETUSER", "default", "-evalsha", "-eval");
        try {
            // Both members fail with the one failure of their script.
            assertThatThrownBy(() -> multi.unlock(owner)).isInstanceOf(LockException.class);
        } finally {
            second.command("ACL", "SETUSER", "default", "+evalsha", "+eval");
        }
        multi.forceUnlock();
        assertThat(multi.isLocked()).isFalse();
    }

    @Test
    void whenMembersSpanClientsThenEveryMemberIsHeldAndAllAreReleased() throws Exception {
        String a = unique("a");
        String b = unique("b");
        MultiLock multi = MultiLock.of(one.getLock(a), two.getLock(b));
        assertThat(multi.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        assertThat(multi.getHoldCount()).isEqualTo(1);
        assertThat(multi.getName()).isEqualTo("[" + a + ", " + b + "]");
        assertThat(other.getLock(a).tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                .isFalse();
        assertThat(second.command("EXISTS", b)).isEqualTo("1");
        multi.unlock();
        assertThat(one.getLock(a).isLocked()).isFalse();
        assertThat(two.getLock(b).isLocked()).isFalse();
    }

    @Test
    void whenOneMemberIsHeldElsewhereThenNothingStaysLocked() throws Exception {
        String a = unique("a");
        String b = unique("b");
        String c = unique("c");
        long stranger = RedisLock.newOwnerId();
        assertThat(other.getLock(b).tryLock(0, 30, TimeUnit.SECONDS, stranger)).isTrue();
        MultiLock multi = MultiLock.of(one.getLock(a), one.getLock(b), two.getLock(c));
        long start = System.nanoTime();
        assertThat(multi.tryLock(300, 10_000, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isBetween(Duration.ofMillis(250), Duration.ofSeconds(3));
        assertThat(one.getLock(a).isLocked()).isFalse();
        assertThat(two.getLock(c).isLocked()).isFalse();
        assertThat(other.getLock(b).isHeldBy(stranger)).isTrue();
        assertThat(multi.tryLock()).isFalse();
        assertThat(one.getLock(a).isLocked()).isFalse();
        other.getLock(b).unlock(stranger);
    }

    @Test
    void whenHeldMemberIsReleasedDuringWaitThenAcquiresAll() throws Exception {
        String a = unique("a");
        String b = unique("b");
        long stranger = RedisLock.newOwnerId();
        assertThat(other.getLock(b).tryLock(0, 700, TimeUnit.MILLISECONDS, stranger))
                .isTrue();
        MultiLock multi = MultiLock.of(one.getLock(a), one.getLock(b));
        assertThat(multi.tryLock(5, 10, TimeUnit.SECONDS)).isTrue();
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        multi.unlock();
        assertThat(multi.isLocked()).isFalse();
    }

    @Test
    void whenTwoCallersNameMembersInCrossedOrderThenNeitherDeadlocks() throws Exception {
        String a = unique("a");
        String b = unique("b");
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger timeouts = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Callable<Void>> callers = List.of(
                    crossing(MultiLock.of(one.getLock(a), two.getLock(b)), inside, overlaps, timeouts),
                    crossing(MultiLock.of(two.getLock(b), one.getLock(a)), inside, overlaps, timeouts));
            List<Future<Void>> done = new ArrayList<>();
            for (Callable<Void> caller : callers) {
                done.add(pool.submit(caller));
            }
            for (Future<Void> future : done) {
                future.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(overlaps).hasValue(0);
        assertThat(timeouts).hasValue(0);
    }

    private static Callable<Void> crossing(
            MultiLock multi, AtomicInteger inside, AtomicInteger overlaps, AtomicInteger timeouts) {
        return () -> {
            for (int i = 0; i < 30; i++) {
                // A deadlock would show up as a timeout: each caller holding one member and waiting for the other.
                if (!multi.tryLock(5, 10, TimeUnit.SECONDS)) {
                    timeouts.incrementAndGet();
                    continue;
                }
                try {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    Thread.sleep(2);
                    inside.decrementAndGet();
                } finally {
                    multi.unlock();
                }
            }
            return null;
        };
    }

    @Test
    void whenSomeMembersFailToUnlockThenOthersAreStillReleasedAndAllFailuresReported() throws Exception {
        String a = unique("a");
        String b = unique("b");
        String c = unique("c");
        MultiLock multi = MultiLock.of(one.getLock(a), one.getLock(b), two.getLock(c));
        assertThat(multi.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
        one.getLock(a).forceUnlock();
        two.getLock(c).forceUnlock();
        assertThatThrownBy(multi::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .satisfies(ex -> assertThat(ex.getSuppressed()).hasSize(1).allSatisfy(s -> assertThat(s)
                        .isInstanceOf(IllegalMonitorStateException.class)));
        assertThat(one.getLock(b).isLocked()).isFalse();
    }

    @Test
    void whenWatchdogLeaseThenEveryMemberIsRenewed() throws Exception {
        String a = unique("a");
        String b = unique("b");
        long owner = RedisLock.newOwnerId();
        MultiLock multi = MultiLock.of(one.getLock(a), two.getLock(b));
        assertThat(multi.tryLock(1, RedisLock.WATCHDOG_LEASE, TimeUnit.SECONDS, owner))
                .isTrue();
        // Watchdog timeout is 1 s: without renewal both members would expire within it.
        await().during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(4)).until(() -> multi.isHeldBy(owner));
        assertThat(one.getLock(a).remainTimeToLive()).isPositive();
        multi.unlock(owner);
        assertThat(multi.isLocked()).isFalse();
    }

    @Test
    void whenLockedWithoutWaitBoundThenOtherThreadsAreExcluded() throws Exception {
        MultiLock multi = MultiLock.of(one.getLock(unique("a")), two.getLock(unique("b")));
        multi.lock();
        try {
            assertThat(CompletableFuture.supplyAsync(multi::tryLock).get(5, TimeUnit.SECONDS))
                    .isFalse();
            assertThat(multi.isHeldByCurrentThread()).isTrue();
        } finally {
            multi.unlock();
        }
        assertThat(CompletableFuture.supplyAsync(() -> {
                            boolean acquired = multi.tryLock();
                            multi.unlock();
                            return acquired;
                        })
                        .get(5, TimeUnit.SECONDS))
                .isTrue();
    }

    @Test
    void whenAnEarlyMemberExpiredWhileALaterOneWasAwaitedThenTryLockHoldsEveryMemberWithTheLease() throws Exception {
        String prefix = unique("lapse");
        String a = prefix + "-a";
        String b = prefix + "-b";
        long x = RedisLock.newOwnerId();
        long y = RedisLock.newOwnerId();
        assertThat(other.getLock(b).tryLock(0, 2500, TimeUnit.MILLISECONDS, x)).isTrue();
        MultiLock multi = MultiLock.of(one.getLock(a), one.getLock(b));
        try {
            // A is taken first with a 1 s lease, then B is awaited until X's 2.5 s lease lapses.
            assertThat(multi.tryLock(10, 1, TimeUnit.SECONDS, y)).isTrue();
            assertThat(one.getLock(a).isHeldBy(y))
                    .as("member %s held by the multi lock's owner", a)
                    .isTrue();
            assertThat(one.getLock(b).isHeldBy(y))
                    .as("member %s held by the multi lock's owner", b)
                    .isTrue();
            assertThat(one.getLock(a).remainTimeToLive()).isBetween(1L, 1000L);
            assertThat(one.getLock(b).remainTimeToLive()).isBetween(1L, 1000L);
        } finally {
            one.getLock(a).forceUnlock();
            one.getLock(b).forceUnlock();
        }
    }

    // A fenced member keeps the multi lock on the member-by-member path, where an early member can
    // lapse while a later one is awaited; one script per server takes plain members together.
    @Test
    void whenAnEarlyMemberLapsedAndAnotherClientTookItThenTryLockDoesNotReturnTrue() throws Exception {
        String prefix = unique("lapse");
        String a = prefix + "-a";
        String b = prefix + "-b";
        long x = RedisLock.newOwnerId();
        long y = RedisLock.newOwnerId();
        long z = RedisLock.newOwnerId();
        assertThat(other.getLock(b).tryLock(0, 2500, TimeUnit.MILLISECONDS, x)).isTrue();
        MultiLock multi = MultiLock.of(one.getLock(a), one.getFencedLock(b));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Boolean> yAcquired = pool.submit(() -> multi.tryLock(10, 1, TimeUnit.SECONDS, y));
            await().atMost(Duration.ofSeconds(5)).until(() -> one.getLock(a).isHeldBy(y));
            // Z waits for A and takes it once Y's 1 s lease on A lapses, long before X lets B go.
            Future<Boolean> zAcquired = pool.submit(() -> other.getLock(a).tryLock(5, 30, TimeUnit.SECONDS, z));
            assertThat(zAcquired.get(10, TimeUnit.SECONDS)).isTrue();
            boolean yHolds = yAcquired.get(20, TimeUnit.SECONDS);
            assertThat(other.getLock(a).isHeldBy(z)).isTrue();
            assertThat(yHolds)
                    .as("multi lock returned true although member %s is held by another client", a)
                    .isFalse();
            assertThat(one.getLock(b).isHeldBy(y))
                    .as("nothing of the failed multi lock stays locked")
                    .isFalse();
        } finally {
            pool.shutdownNow();
            one.getLock(a).forceUnlock();
            one.getLock(b).forceUnlock();
        }
    }

    // Member by member (a fenced member): only there does a waiting caller hold members.
    @Test
    void whenTwoCallersWaitWithoutBoundAndEachHoldsAMemberThenRoundsEndInsteadOfDeadlocking() throws Exception {
        String prefix = unique("cross");
        String a = prefix + "-a";
        String b = prefix + "-b";
        MultiLock multi = MultiLock.of(one.getFencedLock(a), two.getLock(b));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            // Q's thread holds B outside the multi lock; P's lock() takes A and waits for B; then Q's
            // lock() waits for A. Only a round that ends and releases A lets either go on.
            CompletableFuture<Void> qHoldsB = new CompletableFuture<>();
            Future<?> q = pool.submit(() -> {
                two.getLock(b).lock();
                qHoldsB.complete(null);
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> one.getLock(a).isLocked());
                multi.lock();
                multi.unlock();
                two.getLock(b).unlock();
                return null;
            });
            qHoldsB.get(10, TimeUnit.SECONDS);
            Future<?> p = pool.submit(() -> {
                multi.lock();
                multi.unlock();
                return null;
            });
            q.get(30, TimeUnit.SECONDS);
            p.get(30, TimeUnit.SECONDS);
            assertThat(multi.isLocked()).isFalse();
        } finally {
            pool.shutdownNow();
            one.getLock(a).forceUnlock();
            two.getLock(b).forceUnlock();
        }
    }

    @Test
    void whenTheOwnerReentersThenEveryMemberCountsTheReentry() throws Exception {
        String a = unique("a");
        String b = unique("b");
        MultiLock multi = MultiLock.of(one.getLock(a), one.getLock(b));
        multi.lock(10, TimeUnit.SECONDS);
        multi.lock(10, TimeUnit.SECONDS);
        assertThat(one.getLock(a).getHoldCount()).isEqualTo(2);
        assertThat(one.getLock(b).getHoldCount()).isEqualTo(2);
        multi.unlock();
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        assertThat(multi.getHoldCount()).isEqualTo(1);
        multi.unlock();
        assertThat(multi.isLocked()).isFalse();
    }

    @Test
    void whenAMemberIsHeldElsewhereThenAWaitingMultiLockTakesNoMemberUntilItTakesAll() throws Exception {
        String a = unique("a");
        String b = unique("b");
        long stranger = RedisLock.newOwnerId();
        assertThat(other.getLock(b).tryLock(0, 30, TimeUnit.SECONDS, stranger)).isTrue();
        MultiLock multi = MultiLock.of(one.getLock(a), one.getLock(b));
        long owner = RedisLock.newOwnerId();
        CompletableFuture<Boolean> waiting =
                multi.tryLockAsync(20, 10, TimeUnit.SECONDS, owner).toCompletableFuture();
        await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(3))
                .until(() -> !waiting.isDone() && !one.getLock(a).isLocked());
        // Another caller can take the free member meanwhile: the waiting multi lock does not keep it.
        long passer = RedisLock.newOwnerId();
        assertThat(other.getLock(a).tryLock(0, 10, TimeUnit.SECONDS, passer)).isTrue();
        other.getLock(a).unlock(passer);
        other.getLock(b).unlock(stranger);
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(one.getLock(a).isHeldBy(owner) && one.getLock(b).isHeldBy(owner))
                .isTrue();
        multi.unlock(owner);
    }

    @Test
    void whenMembersAreOfDifferentKindsThenTheyAreTakenAndReleasedMemberByMember() throws Exception {
        RedisReadWriteLock first = one.getReadWriteLock(unique("rw"));
        RedisReadWriteLock second = one.getReadWriteLock(unique("rw"));
        RedisLock fair = one.getFairLock(unique("fair"));
        RedisLock plain = one.getLock(unique("plain"));
        MultiLock multi = MultiLock.of(first.readLock(), second.writeLock(), fair, plain);
        long owner = RedisLock.newOwnerId();
        assertThat(multi.tryLock(1, 10, TimeUnit.SECONDS, owner)).isTrue();
        assertThat(multi.isHeldBy(owner)).isTrue();
        assertThat(other.getReadWriteLock(first.getName()).writeLock().tryLock(0, 10, TimeUnit.SECONDS))
                .isFalse();
        assertThat(other.getLock(plain.getName()).tryLock(0, 10, TimeUnit.SECONDS))
                .isFalse();
        multi.unlock(owner);
        assertThat(multi.isLocked()).isFalse();
    }

    @Test
    void whenMembersAreEmptyOrNullThenCreationIsRejected() {
        assertThatThrownBy(MultiLock::of)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one");
        assertThatThrownBy(() -> MultiLock.of(one.getLock("x"), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'locks[1]'");
    }
}
