package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

@DistlockRedisTest
@SpringBootTest(
        classes = TestApplication.class,
        properties = {"test.lock.name=named", "test.lock.region=eu-"})
class DistributedLockTests {

    @Autowired
    LockedService service;

    @Autowired
    LockClient client;

    LockClient other;

    @BeforeEach
    void setUp(RedisServer redis) {
        redis.command("FLUSHALL");
        service.calls().set(0);
        other = LockClient.create(redis.uri());
    }

    @AfterEach
    void tearDown() {
        other.close();
    }

    /** Holds a lock from another client, as another instance of the application would. */
    private RedisLock holdElsewhere(String name) throws InterruptedException {
        RedisLock lock = other.getLock(name);
        long owner = RedisLock.newOwnerId();
        assertThat(lock.tryLock(0, 30_000, TimeUnit.MILLISECONDS, owner)).isTrue();
        heldOwner = owner;
        return lock;
    }

    private long heldOwner;

    @Test
    void whenNoNameThenClassAndMethodNameIsUsed() {
        assertThat(service.defaultName()).isEqualTo("LockedService.defaultName");
        assertThat(client.getLock("LockedService.defaultName").isLocked()).isFalse();
    }

    @Test
    void whenKeyNamesAParameterThenItLocksByItsValue() {
        assertThat(service.byParameterName("42")).isEqualTo("orders:42");
    }

    @Test
    void whenKeyUsesAPositionThenItLocksByThatArgument() {
        assertThat(service.byPosition("a", 7)).isEqualTo("p:a-7");
    }

    @Test
    void whenKeyUsesTheRootObjectThenItIsExposed() {
        assertThat(service.byRoot("x")).isEqualTo("root:byRoot:x:LockedService");
    }

    @Test
    void whenKeyReferencesBeansAndPlaceholdersThenTheyAreResolved() {
        assertThat(service.byBeanAndPlaceholder("1")).isEqualTo("named:k-eu-1");
    }

    @Test
    void whenKeyNavigatesArgumentPropertiesThenTheyAreResolved() {
        assertThat(service.byProperty(new LockedService.Order("o-9"))).isEqualTo("order:o-9");
    }

    @Test
    void whenAnotherInstanceHoldsTheLockThenCallFailsWithoutRunning() throws Exception {
        RedisLock held = holdElsewhere("orders:42");
        assertThatExceptionOfType(LockAcquisitionException.class)
                .isThrownBy(() -> service.byParameterName("42"))
                .withMessageContaining("orders:42");
        assertThat(service.calls()).hasValue(0);
        assertThat(service.byParameterName("43")).isEqualTo("orders:43");
        held.unlock(heldOwner);
        assertThat(service.byParameterName("42")).isEqualTo("orders:42");
    }

    @Test
    void whenTheMethodRunsThenTheLockIsHeldInRedis() throws Exception {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> result = service.future("1", work);
        // The call returns at once; the lock is taken without blocking the caller.
        await().atMost(Duration.ofSeconds(5))
                .until(() -> client.getLock("future:1").isLocked());
        assertThat(result).isNotDone();
        work.complete("done");
        assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done");
        assertThat(client.getLock("future:1").isLocked()).isFalse();
    }

    @Test
    void whenFutureCompletesOnAnotherThreadThenLockIsReleased() throws Exception {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> result = service.future("2", work);
        Thread completer = new Thread(() -> work.complete("async"));
        completer.start();
        assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("async");
        assertThat(client.getLock("future:2").isLocked()).isFalse();
    }

    @Test
    void whenFutureFailsThenLockIsReleasedAndFailurePropagates() {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> result = service.future("3", work);
        work.completeExceptionally(new IllegalStateException("failed work"));
        await().atMost(Duration.ofSeconds(5)).until(result::isDone);
        assertThat(result).isCompletedExceptionally();
        assertThat(client.getLock("future:3").isLocked()).isFalse();
    }

    @Test
    void whenFutureLockIsTakenThenFailedFutureIsReturned() throws Exception {
        holdElsewhere("future:4");
        CompletableFuture<String> result = service.futureNow("4");
        assertThat(result)
                .failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(LockAcquisitionException.class);
    }

    @Test
    void whenAMonoIsSubscribedThenItLocksAndReleasesOnTermination() {
        Sinks.One<String> sink = Sinks.one();
        Mono<String> mono = service.mono("1", sink.asMono());
        assertThat(service.calls()).as("the method runs on subscription").hasValue(0);
        assertThat(client.getLock("mono:1").isLocked()).isFalse();
        CompletableFuture<String> result = mono.toFuture();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> client.getLock("mono:1").isLocked());
        sink.tryEmitValue("value");
        assertThat(result).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("value");
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !client.getLock("mono:1").isLocked());
    }

    @Test
    void whenMonoIsCancelledThenLockIsReleased() {
        var disposable = service.mono("2", Mono.never()).subscribe();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> client.getLock("mono:2").isLocked());
        disposable.dispose();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !client.getLock("mono:2").isLocked());
    }

    @Test
    void whenMonoIsCancelledWhileWaitingForTheLockThenTheLateHoldIsReleased() throws Exception {
        RedisLock held = holdElsewhere("mono-wait:w");
        long owner = heldOwner;
        var disposable = service.monoWaiting("w").subscribe();
        // The subscription is now waiting for the lock on the bounded-elastic scheduler.
        await().pollDelay(Duration.ofMillis(300)).until(() -> held.isHeldBy(owner));
        disposable.dispose();
        held.unlock(owner);
        // Cancelling aborts the wait, or, if the acquisition already went through, releases the late
        // hold that no subscriber will ever release: either way nothing keeps the lock.
        await().pollDelay(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(10))
                .until(() -> !client.getLock("mono-wait:w").isLocked());
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> !client.getLock("mono-wait:w")
                .isLocked());
    }

    @Test
    void whenMonoLockIsTakenThenErrorSignal() throws Exception {
        holdElsewhere("mono:3");
        assertThat(service.mono("3", Mono.just("x")).toFuture())
                .failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(LockAcquisitionException.class);
    }

    @Test
    void whenKeyIsNullThenClearErrorAndMethodNotCalled() {
        assertThatIllegalStateException()
                .isThrownBy(() -> service.nullableKey(null))
                .withMessageContaining("'#id'")
                .withMessageContaining("LockedService.nullableKey")
                .withMessageContaining("null");
        assertThatIllegalStateException()
                .isThrownBy(() -> service.nullableKey("  "))
                .withMessageContaining("blank");
        assertThat(service.calls()).hasValue(0);
    }

    @Test
    void whenConditionIsFalseThenNoLock() {
        assertThat(service.conditional("a", true)).isTrue();
        assertThat(service.conditional("a", false)).isFalse();
    }

    @Test
    void whenALockedMethodCallsAnotherOnTheSameKeyThenItReenters() {
        assertThat(service.outer("r")).isEqualTo("inner:reentrant:r");
        assertThat(client.getLock("reentrant:r").isLocked()).isFalse();
    }

    @Test
    void whenSkipPolicyThenReturnsEmptyWithoutCalling() throws Exception {
        holdElsewhere("skip");
        assertThat(service.skipped()).isNull();
        assertThat(service.skippedOptional()).isEqualTo(Optional.empty());
        assertThat(service.skippedMono().blockOptional(Duration.ofSeconds(5))).isEmpty();
        assertThat(service.calls()).hasValue(0);
    }

    @Test
    void whenFallbackPolicyThenFallbackIsCalledWithSameArguments() throws Exception {
        holdElsewhere("fallback:f1");
        assertThat(service.withFallback("f1")).isEqualTo("busy:f1");
        assertThat(service.withFallback("f2")).isEqualTo("ran");
    }

    @Test
    void whenThrowPolicyThenLockAcquisitionException() throws Exception {
        holdElsewhere("throw");
        long start = System.nanoTime();
        assertThatExceptionOfType(LockAcquisitionException.class)
                .isThrownBy(service::throwing)
                .satisfies(ex -> assertThat(ex.getLockName()).isEqualTo("throw"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(40));
    }

    @Test
    void whenMethodThrowsThenLockIsReleased() {
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(service::failing);
        assertThat(client.getLock("failing").isLocked()).isFalse();
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void whenLeaseRunsOutDuringMethodThenCallStillReturnsUnderLogPolicy() throws Exception {
        assertThat(service.shortLease("l", Duration.ofMillis(500))).isEqualTo("done");
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void whenFencedThenContextGivesIncreasingTokens() {
        long first = service.fenced("t");
        long second = service.fenced("t");
        assertThat(first).isPositive();
        assertThat(second).isGreaterThan(first);
        assertThat(service.unfenced()).isFalse();
    }

    @Test
    void whenTheKeyIsACollectionThenEveryElementIsLocked() throws Exception {
        assertThat(service.multi(List.of("a", "b"))).isEqualTo("multi");
        assertThat(client.getLock("multi:a").isLocked()).isFalse();
        RedisLock held = holdElsewhere("multi:b");
        int calls = service.calls().get();
        assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> service.multi(List.of("a", "b")));
        assertThat(service.calls().get()).as("the method did not run").isEqualTo(calls);
        assertThat(client.getLock("multi:a").isLocked())
                .as("all or nothing: 'a' was rolled back")
                .isFalse();
        held.unlock(heldOwner);
    }

    @Test
    void whenKindIsReadOrWriteThenTheReadWriteLockIsTaken() throws Exception {
        assertThat(service.read("x")).isEqualTo("read");
        assertThat(service.write("x")).isEqualTo("write");
        long owner = RedisLock.newOwnerId();
        RedisLock readElsewhere = other.getReadWriteLock("rw:x").readLock();
        assertThat(readElsewhere.tryLock(0, 30_000, TimeUnit.MILLISECONDS, owner))
                .isTrue();
        assertThat(service.read("x")).as("readers share").isEqualTo("read");
        assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> service.write("x"));
        readElsewhere.unlock(owner);
        RedisLock writeElsewhere = other.getReadWriteLock("rw:x").writeLock();
        assertThat(writeElsewhere.tryLock(0, 30_000, TimeUnit.MILLISECONDS, owner))
                .isTrue();
        assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> service.read("x"));
        writeElsewhere.unlock(owner);
        assertThat(service.read("x")).isEqualTo("read");
    }

    @Test
    void whenKindIsFairThenAFairLockIsTaken() throws Exception {
        assertThat(service.fair("x")).isEqualTo("fair");
        long owner = RedisLock.newOwnerId();
        RedisLock elsewhere = other.getFairLock("fair:x");
        assertThat(elsewhere.tryLock(0, 30_000, TimeUnit.MILLISECONDS, owner)).isTrue();
        assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> service.fair("x"));
        elsewhere.unlock(owner);
        assertThat(service.fair("x")).isEqualTo("fair");
    }
}
