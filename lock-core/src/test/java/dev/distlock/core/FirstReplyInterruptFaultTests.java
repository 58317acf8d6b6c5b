package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A blocking caller waits for its first attempt's reply on its own thread. An interrupt that comes
 * while that reply is outstanding (Redis frozen) must end as an interrupt of any wait does: an
 * interruptible call gives back the grant the reply brings and throws, an uninterruptible one keeps
 * it and the interrupt flag.
 */
@Tag("fault")
class FirstReplyInterruptFaultTests {

    private RedisServer redis;
    private LockClient waiter;
    private LockClient other;

    @BeforeEach
    void setUp() {
        redis = RedisServers.start();
        // Long enough that the reply comes, after the resume, within the call's deadline.
        waiter = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .commandTimeout(Duration.ofSeconds(10))
                .build());
        other = LockClient.create(redis.uri());
    }

    @AfterEach
    void tearDown() {
        try {
            redis.resume();
            waiter.close();
            other.close();
        } finally {
            redis.stop();
        }
    }

    private static RedisLock lock(LockClient client, String kind, String name) {
        return switch (kind) {
            case "fenced" -> client.getFencedLock(name);
            case "fair" -> client.getFairLock(name);
            case "read" -> client.getReadWriteLock(name).readLock();
            case "write" -> client.getReadWriteLock(name).writeLock();
            default -> client.getLock(name);
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"reentrant", "fenced", "write", "fair", "read"})
    void whenInterruptedWhileTheFirstReplyIsOutstandingThenTheGrantIsGivenBack(String kind) throws Exception {
        String name = "first-reply-interrupt-" + kind;
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread caller = frozenCall(
                name,
                (lock, thread) -> {
                    try {
                        outcome.set(lock.tryLock(20, 60, TimeUnit.SECONDS));
                    } catch (InterruptedException ex) {
                        outcome.set(ex);
                    }
                    return null;
                },
                kind);
        caller.interrupt();
        redis.resume();
        caller.join(TimeUnit.SECONDS.toMillis(20));
        assertThat(caller.isAlive()).as("caller still waiting").isFalse();
        assertThat(outcome.get())
                .as("interruptible tryLock interrupted while its first reply was outstanding")
                .isInstanceOf(InterruptedException.class);
        RedisLock free = lock(other, kind, name);
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(free.tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                        .as("the lock, given back by the interrupted caller")
                        .isTrue());
    }

    @ParameterizedTest
    @ValueSource(strings = {"reentrant", "fenced", "write"})
    void whenAnUninterruptibleLockIsInterruptedWhileTheFirstReplyIsOutstandingThenItHoldsAndKeepsTheFlag(String kind)
            throws Exception {
        String name = "first-reply-lock-" + kind;
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread caller = frozenCall(
                name,
                (lock, thread) -> {
                    lock.lock(60, TimeUnit.SECONDS);
                    outcome.set(Thread.currentThread().isInterrupted() && lock.isHeldByCurrentThread());
                    Thread.interrupted();
                    lock.unlock();
                    return null;
                },
                kind);
        caller.interrupt();
        redis.resume();
        caller.join(TimeUnit.SECONDS.toMillis(20));
        assertThat(caller.isAlive()).as("caller still waiting").isFalse();
        assertThat(outcome.get()).as("held, with the interrupt flag kept").isEqualTo(Boolean.TRUE);
    }

    /** Starts a call on a new thread once Redis is frozen, and returns once it waits for the first reply. */
    private Thread frozenCall(String name, BiFunction<RedisLock, Thread, Void> call, String kind) {
        RedisLock lock = lock(waiter, kind, name);
        // Connected, and the kind's scripts loaded, before Redis freezes.
        lock.lock(10, TimeUnit.SECONDS);
        lock.unlock();
        waiter.ping();
        redis.pause();
        Thread caller = new Thread(() -> call.apply(lock, Thread.currentThread()), "first-reply-" + kind);
        caller.start();
        // Nothing but the reply keeps it waiting: the attempt was written to the frozen server.
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        caller.getState() == Thread.State.TIMED_WAITING || caller.getState() == Thread.State.WAITING);
        return caller;
    }
}
