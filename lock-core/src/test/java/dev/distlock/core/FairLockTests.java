package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FairLockTests {

    private static final String NAME = "fair";
    private static final String QUEUE = "redisson_lock_queue:{fair}";
    private static final String DEADLINES = "redisson_lock_timeout:{fair}";

    private final RedisServer redis = RedisServers.shared();
    private final List<LockClient> clients = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();

    @BeforeEach
    void flush() {
        redis.command("FLUSHALL");
    }

    @AfterEach
    void close() throws InterruptedException {
        threads.forEach(Thread::interrupt);
        for (Thread thread : threads) {
            thread.join(5000);
        }
        clients.forEach(LockClient::close);
    }

    private LockClient client(Duration waiterTimeout) {
        LockClient client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .fairLockWaitTimeout(waiterTimeout)
                .build());
        clients.add(client);
        return client;
    }

    private Thread start(String name, ThrowingRunnable body) {
        Thread thread = new Thread(
                () -> {
                    try {
                        body.run();
                    } catch (Exception ex) {
                        // Reported through the test's own assertions.
                    }
                },
                name);
        threads.add(thread);
        thread.start();
        return thread;
    }

    private List<String> queue() {
        String reply = redis.command("LRANGE", QUEUE, "0", "-1");
        return reply.isEmpty() ? List.of() : Arrays.asList(reply.split("\n"));
    }

    private long serverMillis() {
        String[] time = redis.command("TIME").split("\n");
        return Long.parseLong(time[0]) * 1000 + Long.parseLong(time[1]) / 1000;
    }

    /** Queues an owner that nobody services, as a waiter whose process died leaves it behind. */
    private void queueDeadWaiter(String owner, long deadlineFromNowMillis) {
        redis.command("ZADD", DEADLINES, Long.toString(serverMillis() + deadlineFromNowMillis), owner);
        redis.command("RPUSH", QUEUE, owner);
    }

    @Test
    void shouldGrantWaitersInArrivalOrderAcrossClients() throws Exception {
        LockClient first = client(Duration.ofSeconds(5));
        LockClient second = client(Duration.ofSeconds(5));
        RedisLock holderLock = first.getFairLock(NAME);
        holderLock.lock();
        List<Integer> order = new CopyOnWriteArrayList<>();
        long[] acquiredAt = new long[11];
        long[] releasingAt = new long[11];
        CountDownLatch done = new CountDownLatch(10);
        for (int i = 1; i <= 10; i++) {
            int index = i;
            RedisLock lock = (i % 2 == 0 ? second : first).getFairLock(NAME);
            start("waiter-" + i, () -> {
                if (lock.tryLock(30, TimeUnit.SECONDS)) {
                    acquiredAt[index] = System.nanoTime();
                    order.add(index);
                    releasingAt[index] = System.nanoTime();
                    lock.unlock();
                }
                done.countDown();
            });
            await().atMost(Duration.ofSeconds(5)).until(() -> queue().size() == index);
        }
        releasingAt[0] = System.nanoTime();
        holderLock.unlock();
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(order).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
        assertThat(queue()).isEmpty();
        assertThat(redis.command("EXISTS", DEADLINES)).isEqualTo("0");

        // Each hand-off is a publish to the next waiter's own channel, not a park until a lease ends.
        for (int i = 1; i <= 10; i++) {
            assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt[i] - releasingAt[i - 1]))
                    .as("hand-off to waiter %d", i)
                    .isLessThan(2000);
        }
    }

    @Test
    void shouldPurgeDeadWaiterInTheMiddleOfTheQueueWhileTheLockIsHeld() throws Exception {
        LockClient client = client(Duration.ofSeconds(1));
        LockClient doomed = client(Duration.ofSeconds(1));
        RedisLock lock = client.getFairLock(NAME);
        lock.lock();
        CountDownLatch acquired = new CountDownLatch(2);
        RedisLock aLock = client.getFairLock(NAME);
        start("a", () -> {
            if (aLock.tryLock(30, TimeUnit.SECONDS)) {
                acquired.countDown();
                aLock.unlock();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> queue().size() == 1);
        RedisLock deadLock = doomed.getFairLock(NAME);
        Thread dead = start("dead", () -> deadLock.tryLock(60, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(5)).until(() -> queue().size() == 2);
        String deadOwner = doomed.getId() + ":" + dead.getId();
        assertThat(queue().get(1)).isEqualTo(deadOwner);
        // Closing the client stops its waiter without leaving the queue, like a killed process.
        doomed.close();
        RedisLock bLock = client.getFairLock(NAME);
        start("b", () -> {
            if (bLock.tryLock(30, TimeUnit.SECONDS)) {
                acquired.countDown();
                bLock.unlock();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> queue().size() == 3 || !queue().contains(deadOwner));
        long queuedAt = System.nanoTime();
        // Purged by its deadline although it is not the head and the lock is still held.
        await().atMost(Duration.ofSeconds(4)).until(() -> !queue().contains(deadOwner));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - queuedAt)).isLessThan(2500);
        assertThat(queue()).hasSize(2);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertThat(acquired.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(queue()).isEmpty();
    }

    @Test
    void shouldNotLetADeadHeadDelayTheNextWaiterBeyondItsDeadline() throws Exception {
        LockClient client = client(Duration.ofSeconds(1));
        RedisLock lock = client.getFairLock(NAME);
        lock.lock();
        queueDeadWaiter("dead-client:1", 1000);
        AtomicLong acquiredAt = new AtomicLong();
        RedisLock next = client.getFairLock(NAME);
        start("next", () -> {
            if (next.tryLock(30, TimeUnit.SECONDS)) {
                acquiredAt.set(System.nanoTime());
                next.unlock();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> queue().size() == 2);
        long unlockedAt = System.nanoTime();
        lock.unlock();
        await().atMost(Duration.ofSeconds(5)).until(() -> acquiredAt.get() != 0);
        long delay = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - unlockedAt);
        assertThat(delay).isLessThan(1000 + 500);
        assertThat(queue()).isEmpty();
    }

    @Test
    void shouldLeaveNoQueueEntriesWhenWaitersGiveUp() throws Exception {
        LockClient client = client(Duration.ofSeconds(5));
        RedisLock lock = client.getFairLock(NAME);
        lock.lock();
        CountDownLatch gaveUp = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            RedisLock waiter = client.getFairLock(NAME);
            start("timeout-" + i, () -> {
                if (!waiter.tryLock(2, TimeUnit.SECONDS)) {
                    gaveUp.countDown();
                }
            });
        }
        AtomicReference<Throwable> interruptedWith = new AtomicReference<>();
        RedisLock interruptible = client.getFairLock(NAME);
        Thread interrupted = new Thread(
                () -> {
                    try {
                        interruptible.lockInterruptibly();
                    } catch (Throwable ex) {
                        interruptedWith.set(ex);
                    }
                },
                "interrupted");
        threads.add(interrupted);
        interrupted.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> queue().size() == 4);
        interrupted.interrupt();
        interrupted.join(5000);
        assertThat(interruptedWith.get()).isInstanceOf(InterruptedException.class);
        assertThat(queue()).doesNotContain(client.getId() + ":" + interrupted.getId());
        assertThat(gaveUp.await(5, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(2)).until(() -> queue().isEmpty());
        assertThat(redis.command("EXISTS", QUEUE, DEADLINES)).isEqualTo("0");
        lock.unlock();
        assertThat(TestKeys.lockKeys(redis)).isEmpty();
    }

    @Test
    void shouldMoveUpDeadlinesChainedBehindAWaiterThatGivesUp() throws Exception {
        LockClient client = client(Duration.ofSeconds(5));
        RedisLock lock = client.getFairLock(NAME);
        lock.lock();
        RedisLock quitter = client.getFairLock(NAME);
        CountDownLatch gaveUp = new CountDownLatch(1);
        start("quitter", () -> {
            if (!quitter.tryLock(1, TimeUnit.SECONDS)) {
                gaveUp.countDown();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> queue().size() == 1);
        // A Redisson waiter's deadline is chained one thread wait time (5 s) behind the waiter ahead of it.
        queueDeadWaiter("redisson-client:9", 20_000);
        long before = Long.parseLong(redis.command("ZSCORE", DEADLINES, "redisson-client:9"));
        assertThat(gaveUp.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(queue()).containsExactly("redisson-client:9");
        long after = Long.parseLong(redis.command("ZSCORE", DEADLINES, "redisson-client:9"));
        assertThat(before - after).isEqualTo(5000);
        lock.unlock();
    }

    @Test
    void shouldRefuseTryLockWithoutWaitOnlyWhenHeldOrSomeoneIsQueued() throws Exception {
        LockClient client = client(Duration.ofSeconds(5));
        RedisLock lock = client.getFairLock(NAME);
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();

        queueDeadWaiter("other-client:7", 10_000);
        assertThat(lock.tryLock()).isFalse();
        assertThat(queue()).containsExactly("other-client:7");
        redis.command("DEL", QUEUE, DEADLINES);

        CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
            RedisLock otherLock = client.getFairLock(NAME);
            otherLock.lock(10, TimeUnit.SECONDS);
            return true;
        });
        assertThat(other.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.tryLock()).isFalse();
        assertThat(queue()).isEmpty();
        assertThat(lock.forceUnlock()).isTrue();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
    }

    @Test
    void shouldNotPollAFreeLockWhileWaitingBehindAnotherWaiter() throws Exception {
        LockClient client = client(Duration.ofSeconds(3));
        queueDeadWaiter("slow-client:1", 2500);
        List<String> order = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(4);
        redis.command("CONFIG", "RESETSTAT");
        for (int i = 0; i < 4; i++) {
            String id = "w" + i;
            RedisLock waiter = client.getFairLock(NAME);
            start(id, () -> {
                if (waiter.tryLock(20, TimeUnit.SECONDS)) {
                    order.add(id);
                    waiter.unlock();
                }
                done.countDown();
            });
            int expected = i + 2;
            await().atMost(Duration.ofSeconds(5)).until(() -> queue().size() == expected);
        }
        // A second of waiting behind the stalled head (its place lasts 2.5 s), every waiter still queued.
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> done.getCount() == 4);
        long scriptCalls = scriptCalls();
        // 4 waiters, each: an attempt, one after subscribing, and a renewal of its place every second.
        assertThat(scriptCalls).isLessThan(40);
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(order).containsExactly("w0", "w1", "w2", "w3");
    }

    private long scriptCalls() {
        long calls = 0;
        for (String line : redis.command("INFO", "commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                String stats = line.substring(line.indexOf(':') + 1);
                calls += Long.parseLong(stats.substring("calls=".length(), stats.indexOf(',')));
            }
        }
        return calls;
    }

    @Test
    void shouldLeaveTheQueueWhenALockAsyncWaitIsCancelled() throws Exception {
        LockClient holderClient = client(Duration.ofSeconds(5));
        LockClient waiterClient = client(Duration.ofSeconds(5));
        RedisLock holder = holderClient.getFairLock(NAME);
        long holderId = RedisLock.newOwnerId();
        assertThat(holder.tryLock(0, 30, TimeUnit.SECONDS, holderId)).isTrue();
        RedisLock waiter = waiterClient.getFairLock(NAME);
        long waiterId = RedisLock.newOwnerId();
        CompletableFuture<Void> waiting =
                waiter.lockAsync(30, TimeUnit.SECONDS, waiterId).toCompletableFuture();
        await().atMost(Duration.ofSeconds(5)).until(() -> queue().size() == 1);
        await().pollDelay(Duration.ofMillis(500)).until(() -> !waiting.isDone());
        assertThat(waiting.cancel(false)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> queue().isEmpty());
        holder.unlock(holderId);
        assertThat(waiter.isHeldBy(waiterId)).isFalse();
        assertThat(holder.isLocked()).isFalse();
        assertThat(queue()).isEmpty();
    }

    @Test
    void shouldKeepAnOwnersPlaceWhileAnotherOfItsCallsStillWaits() throws Exception {
        LockClient holderClient = client(Duration.ofSeconds(5));
        LockClient ownerClient = client(Duration.ofSeconds(5));
        LockClient otherClient = client(Duration.ofSeconds(5));
        RedisLock holder = holderClient.getFairLock(NAME);
        long holderId = RedisLock.newOwnerId();
        assertThat(holder.tryLock(0, 30, TimeUnit.SECONDS, holderId)).isTrue();

        // Two tasks of one request share its owner id on one client; the first gives up early.
        RedisLock lock = ownerClient.getFairLock(NAME);
        long owner = RedisLock.newOwnerId();
        String ownerField = ownerClient.getId() + ":" + owner;
        CompletableFuture<Boolean> shortWait =
                lock.tryLockAsync(1500, 30_000, TimeUnit.MILLISECONDS, owner).toCompletableFuture();
        await().atMost(Duration.ofSeconds(5)).until(() -> queue().equals(List.of(ownerField)));
        CompletableFuture<Boolean> longWait =
                lock.tryLockAsync(20_000, 30_000, TimeUnit.MILLISECONDS, owner).toCompletableFuture();

        RedisLock otherLock = otherClient.getFairLock(NAME);
        long other = RedisLock.newOwnerId();
        String otherField = otherClient.getId() + ":" + other;
        CompletableFuture<Boolean> otherWait = otherLock
                .tryLockAsync(20_000, 30_000, TimeUnit.MILLISECONDS, other)
                .toCompletableFuture();
        await().atMost(Duration.ofSeconds(5)).until(() -> queue().equals(List.of(ownerField, otherField)));

        assertThat(shortWait.get(10, TimeUnit.SECONDS)).isFalse();
        List<String> afterGivingUp = queue();
        holder.unlock(holderId);
        await().atMost(Duration.ofSeconds(10)).until(() -> longWait.isDone() || otherWait.isDone());

        assertThat(longWait.getNow(false))
                .as(
                        "the owner's waiting task, queued before the other owner (queue once the first task"
                                + " gave up: %s)",
                        afterGivingUp)
                .isTrue();
        assertThat(otherWait).isNotDone();
        assertThat(afterGivingUp).containsExactly(ownerField, otherField);
        assertThat(queue()).containsExactly(otherField);
        lock.unlock(owner);
        assertThat(otherWait.get(10, TimeUnit.SECONDS)).isTrue();
        otherLock.unlock(other);
        assertThat(queue()).isEmpty();
    }

    @Test
    void shouldRefuseUnlockByAnOwnerThatHoldsNothing() {
        LockClient client = client(Duration.ofSeconds(5));
        RedisLock lock = client.getFairLock(NAME);
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(NAME);
    }

    @FunctionalInterface
    interface ThrowingRunnable {

        void run() throws Exception;
    }
}
