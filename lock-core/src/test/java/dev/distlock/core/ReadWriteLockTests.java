package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.script.LuaScript;
import dev.distlock.core.internal.script.Scripts;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ReadWriteLockTests {

    private static final String NAME = "rw";
    private static final String WRITERS = "distlock_rwlock_writers:{rw}";

    private final RedisServer redis = RedisServers.shared();
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final List<LockClient> clients = new ArrayList<>();
    private LockClient client;

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
        client = client(Duration.ofSeconds(30));
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        executor.shutdownNow();
        executor.awaitTermination(5, TimeUnit.SECONDS);
        clients.forEach(LockClient::close);
    }

    private LockClient client(Duration watchdog) {
        LockClient created = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .watchdogTimeout(watchdog)
                .fairLockWaitTimeout(Duration.ofSeconds(3))
                .build());
        clients.add(created);
        return created;
    }

    private RedisReadWriteLock rw() {
        return client.getReadWriteLock(NAME);
    }

    private <T> T onOtherThread(Callable<T> call) throws Exception {
        return executor.submit(call).get(30, TimeUnit.SECONDS);
    }

    private List<String> claims() {
        String reply = redis.command("ZRANGE", WRITERS, "0", "-1");
        return reply.isEmpty() ? List.of() : Arrays.asList(reply.split("\n"));
    }

    private long serverMillis() {
        String[] time = redis.command("TIME").split("\n");
        return Long.parseLong(time[0]) * 1000 + Long.parseLong(time[1]) / 1000;
    }

    private long pttl() {
        return Long.parseLong(redis.command("PTTL", NAME));
    }

    @Test
    void shouldAdmitManyReadersAtOnceAndKeepThemCycling() throws Exception {
        int readers = 8;
        CyclicBarrier allInside = new CyclicBarrier(readers);
        List<Future<Boolean>> inside = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            inside.add(executor.submit(() -> {
                RedisLock read = rw().readLock();
                read.lock();
                try {
                    // Passes only if all readers hold the lock at the same time.
                    allInside.await(10, TimeUnit.SECONDS);
                    return true;
                } finally {
                    read.unlock();
                }
            }));
        }
        for (Future<Boolean> reader : inside) {
            assertThat(reader.get(20, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(redis.command("EXISTS", NAME)).isEqualTo("0");

        AtomicInteger cycles = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Future<?>> loops = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            loops.add(executor.submit(() -> {
                RedisLock read = rw().readLock();
                while (!stop.get()) {
                    read.lock();
                    read.unlock();
                    cycles.incrementAndGet();
                }
                return null;
            }));
        }
        // Every reader cycles many times while the others hold read locks too; throughput is lock-benchmarks' job.
        await().atMost(Duration.ofSeconds(20)).until(() -> cycles.get() > readers * 20);
        stop.set(true);
        for (Future<?> loop : loops) {
            loop.get(10, TimeUnit.SECONDS);
        }
        assertThat(TestKeys.lockKeys(redis)).isEmpty();
    }

    @Test
    void shouldExcludeWritersFromReadersAndFromEachOther() throws Exception {
        RedisLock read = rw().readLock();
        read.lock();
        assertThat(onOtherThread(() -> rw().writeLock().tryLock(200, TimeUnit.MILLISECONDS)))
                .isFalse();
        assertThat(onOtherThread(() -> {
                    RedisLock otherRead = rw().readLock();
                    boolean got = otherRead.tryLock();
                    otherRead.unlock();
                    return got;
                }))
                .isTrue();
        read.unlock();

        RedisLock write = rw().writeLock();
        write.lock();
        assertThat(write.isLocked()).isTrue();
        assertThat(rw().readLock().isLocked()).isFalse();
        assertThat(onOtherThread(() -> rw().readLock().tryLock(200, TimeUnit.MILLISECONDS)))
                .isFalse();
        assertThat(onOtherThread(() -> rw().writeLock().tryLock(200, TimeUnit.MILLISECONDS)))
                .isFalse();
        LockClient other = client(Duration.ofSeconds(30));
        assertThat(onOtherThread(() -> other.getReadWriteLock(NAME).writeLock().tryLock()))
                .isFalse();

        Future<Long> waitingReader = executor.submit(() -> {
            RedisLock r = rw().readLock();
            long start = System.nanoTime();
            r.lock();
            long waited = System.nanoTime() - start;
            r.unlock();
            return waited;
        });
        Future<Boolean> waitingWriter = executor.submit(() -> {
            RedisLock w = other.getReadWriteLock(NAME).writeLock();
            boolean got = w.tryLock(10, TimeUnit.SECONDS);
            w.unlock();
            return got;
        });
        await().pollDelay(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(5))
                .until(() -> !waitingReader.isDone() && !waitingWriter.isDone());
        write.unlock();
        assertThat(waitingReader.get(10, TimeUnit.SECONDS)).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(250));
        assertThat(waitingWriter.get(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(2))
                .until(() -> TestKeys.lockKeys(redis).isEmpty());
    }

    @Test
    void shouldDowngradeAndWakeWaitingReadersAtOnce() throws Exception {
        RedisLock write = rw().writeLock();
        RedisLock read = rw().readLock();
        write.lock();
        AtomicLong readerInAt = new AtomicLong();
        CountDownLatch readerOut = new CountDownLatch(1);
        Future<Boolean> reader = executor.submit(() -> {
            RedisLock r = rw().readLock();
            boolean got = r.tryLock(20, TimeUnit.SECONDS);
            readerInAt.set(System.nanoTime());
            readerOut.await(10, TimeUnit.SECONDS);
            r.unlock();
            return got;
        });
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> readerInAt.get() == 0);
        assertThat(read.tryLock()).isTrue();
        assertThat(redis.command("HGET", NAME, "mode")).isEqualTo("write");
        long downgradedAt = System.nanoTime();
        write.unlock();
        assertThat(redis.command("HGET", NAME, "mode")).isEqualTo("read");
        assertThat(read.isHeldByCurrentThread()).isTrue();
        assertThat(write.isHeldByCurrentThread()).isFalse();
        await().atMost(Duration.ofSeconds(5)).until(() -> readerInAt.get() != 0);
        long wake = TimeUnit.NANOSECONDS.toMillis(readerInAt.get() - downgradedAt);
        // The writer's lease is the 30 s watchdog: only the downgrade's wake-up lets the reader in this soon.
        assertThat(wake).isLessThan(2000);
        assertThat(onOtherThread(() -> rw().writeLock().tryLock(100, TimeUnit.MILLISECONDS)))
                .isFalse();
        readerOut.countDown();
        assertThat(reader.get(10, TimeUnit.SECONDS)).isTrue();
        read.unlock();
        assertThat(TestKeys.lockKeys(redis)).isEmpty();
    }

    @Test
    void shouldRefuseUpgradeWithoutDeadlock() throws Exception {
        RedisLock read = rw().readLock();
        RedisLock write = rw().writeLock();
        read.lock();
        long start = System.nanoTime();
        assertThat(write.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(290);
        assertThat(redis.command("EXISTS", WRITERS)).isEqualTo("0");
        assertThatThrownBy(write::lock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("'" + NAME + "'")
                .hasMessageContaining("upgrad");
        assertThatThrownBy(write::lockInterruptibly).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(read.getHoldCount()).isEqualTo(1);
        read.unlock();
        write.lock();
        write.unlock();
        assertThat(TestKeys.lockKeys(redis)).isEmpty();
    }

    @Test
    void shouldNotLetAnExpiredReadHoldKeepTheLockAlive() throws Exception {
        // Unlock recomputes the TTL: the long reader leaves, the lock keeps only the short hold's TTL.
        RedisLock a = rw().readLock();
        assertThat(a.tryLock(0, 2, TimeUnit.SECONDS)).isTrue();
        long bOwner = RedisLock.newOwnerId();
        RedisLock b = rw().readLock();
        assertThat(b.tryLock(0, 20, TimeUnit.SECONDS, bOwner)).isTrue();
        assertThat(pttl()).isGreaterThan(10_000);
        b.unlock(bOwner);
        assertThat(pttl()).isBetween(1L, 2000L);

        // An expired hold does not keep the lock: once a's lease passed, a writer gets in.
        long start = System.nanoTime();
        assertThat(onOtherThread(() -> rw().writeLock().tryLock(5, TimeUnit.SECONDS)))
                .isTrue();
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        // a's lease was 2 s; b's 20 s lease, released early, must not count.
        assertThat(waited).isLessThan(4000);
        assertThatThrownBy(a::unlock).isInstanceOf(IllegalMonitorStateException.class);

        // A read hold that expired while another reader keeps the lock is dropped, not counted.
        redis.command("FLUSHALL");
        long cOwner = RedisLock.newOwnerId();
        long dOwner = RedisLock.newOwnerId();
        RedisLock read = rw().readLock();
        assertThat(read.tryLock(0, 300, TimeUnit.MILLISECONDS, cOwner)).isTrue();
        assertThat(read.tryLock(0, 20, TimeUnit.SECONDS, dOwner)).isTrue();
        await().pollDelay(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2)).until(() -> redis.command(
                        "EXISTS", "{rw}:" + client.getId() + ":" + cOwner + ":rwlock_timeout:1")
                .equals("0"));
        assertThatThrownBy(() -> read.unlock(cOwner)).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(redis.command("HEXISTS", NAME, client.getId() + ":" + cOwner))
                .isEqualTo("0");
        read.unlock(dOwner);
        assertThat(redis.command("EXISTS", NAME)).isEqualTo("0");
    }

    @Test
    void shouldResetTheWriteLeaseOnReentryInsteadOfAddingToIt() {
        RedisLock write = rw().writeLock();
        write.lock(3, TimeUnit.SECONDS);
        write.lock(3, TimeUnit.SECONDS);
        assertThat(pttl()).isBetween(1L, 3000L);
        assertThat(write.getHoldCount()).isEqualTo(2);
        write.unlock();
        assertThat(pttl()).isBetween(1L, 3000L);
        write.unlock();
        assertThat(redis.command("EXISTS", NAME)).isEqualTo("0");
    }

    @Test
    void shouldRenewReadHoldsAndTheirTimeoutsWithTheWatchdog() throws Exception {
        LockClient fast = client(Duration.ofSeconds(1));
        RedisLock read = fast.getReadWriteLock(NAME).readLock();
        RedisLock write = fast.getReadWriteLock(NAME).writeLock();
        long owner = RedisLock.newOwnerId();
        assertThat(write.tryLock(0, -1, TimeUnit.MILLISECONDS, owner)).isTrue();
        assertThat(read.tryLock(0, -1, TimeUnit.MILLISECONDS, owner)).isTrue();
        assertThat(read.tryLock(0, -1, TimeUnit.MILLISECONDS, owner)).isTrue();
        write.unlock(owner);
        String timeoutKey = "{rw}:" + fast.getId() + ":" + owner + ":rwlock_timeout:";
        // Past the 1 s watchdog lease more than twice over: only renewal keeps the read holds.
        await().during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5)).until(() -> read.isHeldBy(owner));
        assertThat(Long.parseLong(redis.command("PTTL", timeoutKey + "1"))).isPositive();
        assertThat(Long.parseLong(redis.command("PTTL", timeoutKey + "2"))).isPositive();
        assertThat(fast.heldLocks()).hasSize(1);
        read.unlock(owner);
        read.unlock(owner);
        assertThat(TestKeys.lockKeys(redis)).isEmpty();
        assertThat(fast.heldLocks()).isEmpty();
    }

    @Test
    void shouldNotStarveAWriterWithAStreamOfReaders() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger readsWhileWriterWaited = new AtomicInteger();
        AtomicBoolean writerWaiting = new AtomicBoolean();
        List<Future<?>> readers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int index = i;
            readers.add(executor.submit(() -> {
                Thread.sleep(index * 25L);
                RedisLock read = rw().readLock();
                while (!stop.get()) {
                    if (read.tryLock(5, TimeUnit.SECONDS)) {
                        if (writerWaiting.get()) {
                            readsWhileWriterWaited.incrementAndGet();
                        }
                        Thread.sleep(100);
                        read.unlock();
                    }
                }
                return null;
            }));
        }
        await().atMost(Duration.ofSeconds(5))
                .until(() -> redis.command("HGET", NAME, "mode").equals("read"));
        RedisLock write = rw().writeLock();
        writerWaiting.set(true);
        long start = System.nanoTime();
        boolean got = write.tryLock(5, TimeUnit.SECONDS);
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        writerWaiting.set(false);
        if (got) {
            write.unlock();
        }
        stop.set(true);
        for (Future<?> reader : readers) {
            reader.get(15, TimeUnit.SECONDS);
        }
        assertThat(got).isTrue();
        // Readers that held the lock finish their 100 ms; new ones stay out.
        assertThat(waited).isLessThan(1500);
        assertThat(readsWhileWriterWaited.get()).isLessThanOrEqualTo(4);
    }

    @Test
    void shouldKeepNewReadersOutWhileAWriterWaitsButLetHoldersReenter() throws Exception {
        RedisLock read = rw().readLock();
        read.lock();
        Future<Boolean> writer = executor.submit(() -> rw().writeLock().tryLock(1500, TimeUnit.MILLISECONDS));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> redis.command("EXISTS", WRITERS).equals("1"));
        assertThat(onOtherThread(() -> rw().readLock().tryLock(200, TimeUnit.MILLISECONDS)))
                .isFalse();
        assertThat(read.tryLock()).isTrue();
        assertThat(read.getHoldCount()).isEqualTo(2);
        Future<Long> lateReader = executor.submit(() -> {
            RedisLock r = rw().readLock();
            if (!r.tryLock(10, TimeUnit.SECONDS)) {
                return -1L;
            }
            long at = System.nanoTime();
            r.unlock();
            return at;
        });
        assertThat(writer.get(10, TimeUnit.SECONDS)).isFalse();
        long gaveUpAt = System.nanoTime();
        // The writer gave up: its claim is withdrawn and the reader kept out is woken, not left to poll.
        long enteredAt = lateReader.get(10, TimeUnit.SECONDS);
        assertThat(enteredAt).isPositive();
        assertThat(TimeUnit.NANOSECONDS.toMillis(enteredAt - gaveUpAt)).isLessThan(1500);
        assertThat(redis.command("EXISTS", WRITERS)).isEqualTo("0");
        read.unlock();
        read.unlock();
        assertThat(TestKeys.lockKeys(redis)).isEmpty();
    }

    @Test
    void shouldKeepAnOwnersWriteClaimWhileAnotherOfItsCallsStillWaits() throws Exception {
        LockClient readerClient = client(Duration.ofSeconds(30));
        LockClient ownerClient = client(Duration.ofSeconds(30));
        LockClient lateClient = client(Duration.ofSeconds(30));
        RedisLock held = readerClient.getReadWriteLock(NAME).readLock();
        long reader = RedisLock.newOwnerId();
        assertThat(held.tryLock(0, 30, TimeUnit.SECONDS, reader)).isTrue();
        // What readers kept out by a claim hear when it is withdrawn; the marker closes the window.
        String channel = "redisson_rwlock:{" + NAME + "}";
        String marker = "marker";
        Queue<String> announced = new ConcurrentLinkedQueue<>();
        RedisClient listener = RedisClient.create(redis.uri());
        try (StatefulRedisPubSubConnection<String, String> subscriber = listener.connectPubSub()) {
            subscriber.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String from, String message) {
                    announced.add(message);
                }
            });
            subscriber.sync().subscribe(channel);

            // Two tasks of one request share its owner id on one client; the first gives up early.
            RedisLock write = ownerClient.getReadWriteLock(NAME).writeLock();
            long owner = RedisLock.newOwnerId();
            String writerField = ownerClient.getId() + ":" + owner + ":write";
            CompletableFuture<Boolean> shortWait = write.tryLockAsync(1500, 30_000, TimeUnit.MILLISECONDS, owner)
                    .toCompletableFuture();
            await().atMost(Duration.ofSeconds(5)).until(() -> claims().equals(List.of(writerField)));
            CompletableFuture<Boolean> longWait = write.tryLockAsync(20_000, 30_000, TimeUnit.MILLISECONDS, owner)
                    .toCompletableFuture();

            assertThat(shortWait.get(10, TimeUnit.SECONDS)).isFalse();
            List<String> afterGivingUp = claims();
            RedisLock late = lateClient.getReadWriteLock(NAME).readLock();
            long lateReader = RedisLock.newOwnerId();
            boolean lateEntered = late.tryLock(0, 30, TimeUnit.SECONDS, lateReader);
            if (lateEntered) {
                late.unlock(lateReader);
            }
            redis.command("PUBLISH", channel, marker);
            await().atMost(Duration.ofSeconds(5)).until(() -> announced.contains(marker));

            assertThat(lateEntered)
                    .as(
                            "a new reader while the owner's other task still waits (claims once the first gave up: %s)",
                            afterGivingUp)
                    .isFalse();
            assertThat(announced)
                    .as("readers told that no writer waits any more, while the owner's other task still waits")
                    .containsExactly(marker);
            assertThat(afterGivingUp).containsExactly(writerField);
            assertThat(longWait).isNotDone();

            held.unlock(reader);
            assertThat(longWait.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(claims()).isEmpty();
            write.unlock(owner);
            assertThat(TestKeys.lockKeys(redis)).isEmpty();
        } finally {
            listener.shutdown();
        }
    }

    @ParameterizedTest(name = "cancelled: {0}")
    @ValueSource(booleans = {false, true})
    void shouldWithdrawAnOwnersKeptClaimWhenItsLastCallGivesUpInTheLocalLine(boolean cancelled) throws Exception {
        LockClient readerClient = client(Duration.ofSeconds(30));
        LockClient ownerClient = client(Duration.ofSeconds(30));
        RedisLock held = readerClient.getReadWriteLock(NAME).readLock();
        long reader = RedisLock.newOwnerId();
        assertThat(held.tryLock(0, 30, TimeUnit.SECONDS, reader)).isTrue();

        // Local line: the owner's first task, another owner's task, the owner's second task.
        RedisLock write = ownerClient.getReadWriteLock(NAME).writeLock();
        long owner = RedisLock.newOwnerId();
        long other = RedisLock.newOwnerId();
        String writerField = ownerClient.getId() + ":" + owner + ":write";
        String otherField = ownerClient.getId() + ":" + other + ":write";
        CompletableFuture<Boolean> first =
                write.tryLockAsync(1500, 30_000, TimeUnit.MILLISECONDS, owner).toCompletableFuture();
        await().atMost(Duration.ofSeconds(5)).until(() -> claims().equals(List.of(writerField)));
        CompletableFuture<Boolean> otherWait =
                write.tryLockAsync(20_000, 30_000, TimeUnit.MILLISECONDS, other).toCompletableFuture();
        CompletableFuture<Boolean> second =
                write.tryLockAsync(3000, 30_000, TimeUnit.MILLISECONDS, owner).toCompletableFuture();

        assertThat(first.get(10, TimeUnit.SECONDS)).isFalse();
        // The first task left the owner's claim to the second, which waits behind the other owner's.
        await().atMost(Duration.ofSeconds(5)).until(() -> claims().contains(otherField));
        assertThat(claims()).containsExactlyInAnyOrder(writerField, otherField);
        // Its wait ended in the line: the claim it was left goes with it, not when it lapses.
        long lapsesAt = (long) Double.parseDouble(redis.command("ZSCORE", WRITERS, writerField));
        if (cancelled) {
            second.cancel(false);
            long[] goneBy = {0};
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                boolean gone = claims().equals(List.of(otherField));
                goneBy[0] = serverMillis();
                return gone;
            });
            assertThat(goneBy[0]).as("withdrawn before it lapses").isLessThan(lapsesAt);
        } else {
            assertThat(second.get(10, TimeUnit.SECONDS)).isFalse();
            assertThat(claims()).containsExactly(otherField);
            assertThat(serverMillis()).as("withdrawn before it lapses").isLessThan(lapsesAt);
        }

        held.unlock(reader);
        assertThat(otherWait.get(10, TimeUnit.SECONDS)).isTrue();
        write.unlock(other);
        assertThat(TestKeys.lockKeys(redis)).isEmpty();
    }

    @Test
    void shouldLoadEveryScriptOnTheServer() {
        for (LuaScript script : Scripts.all()) {
            assertThat(redis.command("SCRIPT", "LOAD", script.source()))
                    .as(script.name())
                    .isEqualTo(script.sha1());
        }
    }

    @Test
    void shouldForceUnlockOnlyInItsOwnMode() throws Exception {
        RedisLock read = rw().readLock();
        read.lock();
        assertThat(rw().writeLock().forceUnlock()).isFalse();
        assertThat(rw().readLock().forceUnlock()).isTrue();
        assertThat(TestKeys.lockKeys(redis)).isEmpty();
        assertThatThrownBy(read::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }
}
