package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.nonblocking.IoThreadsMustNotBlock;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link LockClient#close()} makes every call that races it fail with a {@link LockException}. */
class ClientCloseTests {

    private static final Map<String, Function<LockClient, RedisLock>> KINDS = Map.of(
            "reentrant", c -> c.getLock("close-reentrant"),
            "fenced", c -> c.getFencedLock("close-fenced"),
            "fair", c -> c.getFairLock("close-fair"),
            "read", c -> c.getReadWriteLock("close-rw-read").readLock(),
            "write", c -> c.getReadWriteLock("close-rw-write").writeLock());

    private final RedisServer redis = RedisServers.shared();
    private LockClient holder;
    private LockClient waiting;
    private final List<Thread> threads = new ArrayList<>();

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
        holder = LockClient.create(redis.uri());
        waiting = LockClient.create(redis.uri());
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        waiting.close();
        holder.close();
        for (Thread thread : threads) {
            thread.interrupt();
            thread.join(5000);
        }
    }

    private Thread start(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        threads.add(thread);
        thread.start();
        return thread;
    }

    /** Takes the lock that {@code kind} waits for: the write side blocks a reader, the read side blocks a writer. */
    private void holdAgainst(String kind) throws InterruptedException {
        RedisLock blocker =
                switch (kind) {
                    case "read" -> holder.getReadWriteLock("close-rw-read").writeLock();
                    case "write" -> holder.getReadWriteLock("close-rw-write").readLock();
                    default -> KINDS.get(kind).apply(holder);
                };
        assertThat(blocker.tryLock(0, 60, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                .isTrue();
    }

    @Test
    void whenClientClosesWhileWaitersOfEveryKindAreParkedThenEachFailsWithLockException() throws Exception {
        Map<String, FutureTask<Boolean>> waits = new java.util.TreeMap<>();
        Map<String, Thread> waitingThreads = new java.util.TreeMap<>();
        for (String kind : KINDS.keySet()) {
            holdAgainst(kind);
            RedisLock lock = KINDS.get(kind).apply(waiting);
            FutureTask<Boolean> wait = new FutureTask<>(() -> lock.tryLock(30, 60, TimeUnit.SECONDS));
            waits.put(kind, wait);
            waitingThreads.put(kind, start(wait, "waiter-" + kind));
            // Lock forever, too: lock() documents no InterruptedException, only LockException.
            FutureTask<Boolean> forever = new FutureTask<>(() -> {
                lock.lock();
                return true;
            });
            waits.put(kind + "-lock()", forever);
            waitingThreads.put(kind + "-lock()", start(forever, "waiter-forever-" + kind));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> Parked.waiters(waiting) == waitingThreads.size());

        waiting.close();

        for (Map.Entry<String, FutureTask<Boolean>> wait : waits.entrySet()) {
            Throwable failure = null;
            try {
                wait.getValue().get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException ex) {
                failure = ex.getCause();
            }
            assertThat(failure)
                    .as("waiter %s", wait.getKey())
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("closed");
        }
    }

    @Test
    void whenClientClosesWhileCallsOfEveryKindRaceItThenEveryFailureIsALockException() throws Exception {
        for (String kind : KINDS.keySet()) {
            holdAgainst(kind);
        }
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> racers = new ArrayList<>();
        for (String kind : KINDS.keySet()) {
            for (int i = 0; i < 3; i++) {
                RedisLock lock = KINDS.get(kind).apply(waiting);
                racers.add(start(
                        () -> {
                            while (!stop.get()) {
                                try {
                                    // Short waits: each call joins and leaves the channel, subscribing anew.
                                    lock.tryLock(20, 60, TimeUnit.MILLISECONDS);
                                } catch (LockException ex) {
                                    if (waiting.isClosed()) {
                                        return;
                                    }
                                } catch (InterruptedException ex) {
                                    return;
                                } catch (RuntimeException ex) {
                                    unexpected.add(ex);
                                    return;
                                }
                            }
                        },
                        "racer-" + kind + "-" + i));
            }
        }
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> true);
        waiting.close();
        for (Thread racer : racers) {
            racer.join(10_000);
        }
        stop.set(true);
        assertThat(unexpected).isEmpty();
        assertThat(racers).noneMatch(Thread::isAlive);
    }

    @Test
    void whenAListenerBlocksTheThreadItIsToldOnThenCloseStillReturns() throws Exception {
        CountDownLatch told = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<String> toldOn = new AtomicReference<>();
        LockClient blocked = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .listener(new LockListener() {
                    @Override
                    public void onAcquired(String lockName, long ownerId, long waitNanos) {
                        toldOn.set(Thread.currentThread().getName());
                        told.countDown();
                        // The user's mistake this test is about: a listener that blocks the thread it runs on.
                        IoThreadsMustNotBlock.onPurpose(() -> {
                            try {
                                release.await();
                            } catch (InterruptedException ex) {
                                Thread.currentThread().interrupt();
                            }
                        });
                    }
                })
                .build());
        Thread closing = null;
        try {
            blocked.getLock("close-blocked-listener").tryLockAsync(0, 30, TimeUnit.SECONDS, 1L);
            assertThat(told.await(20, TimeUnit.SECONDS))
                    .as("the listener was told")
                    .isTrue();
            closing = start(blocked::close, "closing");
            Thread closer = closing;
            // Bounded by the client's own shutdown allowance, not by the listener: it never returns on its own.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(closer.isAlive())
                    .as("close() still waits while a listener blocks %s", toldOn.get())
                    .isFalse());
        } finally {
            release.countDown();
            if (closing != null) {
                closing.join(10_000);
            }
        }
    }
}
