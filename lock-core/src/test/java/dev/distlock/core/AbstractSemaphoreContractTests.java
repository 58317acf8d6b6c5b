package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The semaphore contract: permits that free themselves (a lease, or the watchdog while the client
 * lives), waiters woken by releases, clear errors; between two clients, on every topology a subclass
 * connects to.
 */
abstract class AbstractSemaphoreContractTests {

    protected static final Duration WATCHDOG = Duration.ofSeconds(3);

    private final List<LockClient> clients = new ArrayList<>();
    protected LockClient alice;
    private LockClient bob;
    private ExecutorService pool;
    protected String name;

    /**
     * Points a client's options at the topology under test.
     * @param options the options, with the watchdog and command timeouts set
     * @return the options to build
     */
    protected abstract LockClientOptions.Builder connect(LockClientOptions.Builder options);

    @BeforeEach
    void setUp() {
        alice = client();
        bob = client();
        pool = Executors.newCachedThreadPool();
        name = "semaphore:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        clients.forEach(LockClient::close);
    }

    private LockClient client() {
        LockClient client = LockClient.create(
                connect(LockClientOptions.builder().watchdogTimeout(WATCHDOG).commandTimeout(Duration.ofSeconds(2)))
                        .build());
        clients.add(client);
        return client;
    }

    @Test
    void whenPermitsAreSetOnceThenASecondSetChangesNothing() {
        RedisSemaphore semaphore = alice.getSemaphore(name);
        assertThat(semaphore.availablePermits()).isZero();
        assertThat(semaphore.trySetPermits(3)).isTrue();
        assertThat(bob.getSemaphore(name).trySetPermits(5)).isFalse();
        assertThat(semaphore.availablePermits()).isEqualTo(3);
    }

    @Test
    void whenPermitsAreSetAsynchronouslyThenOnlyTheFirstSetCounts() throws Exception {
        RedisSemaphore semaphore = alice.getSemaphore(name);
        assertThat(semaphore.trySetPermitsAsync(4).toCompletableFuture().get(5, TimeUnit.SECONDS))
                .isTrue();
        assertThat(bob.getSemaphore(name)
                        .trySetPermitsAsync(9)
                        .toCompletableFuture()
                        .get(5, TimeUnit.SECONDS))
                .isFalse();
        assertThat(semaphore.availablePermits()).isEqualTo(4);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> semaphore.trySetPermitsAsync(-1))
                .withMessageContaining("'permits'");
    }

    @Test
    void whenPermitsAreTakenThenTakenPermitsListsEveryClientsIdsAndLeases() throws Exception {
        RedisSemaphore semaphore = alice.getSemaphore(name);
        assertThat(semaphore.takenPermits()).isEmpty();
        semaphore.trySetPermits(3);
        String mine = semaphore.tryAcquire(0, 30, TimeUnit.SECONDS);
        String theirs = bob.getSemaphore(name).tryAcquire(0, RedisSemaphore.WATCHDOG_LEASE, TimeUnit.SECONDS);
        List<RedisSemaphore.Permit> taken = semaphore.takenPermits();
        assertThat(taken).extracting(RedisSemaphore.Permit::id).containsExactlyInAnyOrder(mine, theirs);
        assertThat(taken).filteredOn(p -> p.id().equals(mine)).singleElement().satisfies(p -> assertThat(
                        p.remainingTtlMillis())
                .isBetween(20_000L, 30_000L));
        assertThat(taken).filteredOn(p -> p.id().equals(theirs)).singleElement().satisfies(p -> assertThat(
                        p.remainingTtlMillis())
                .isBetween(1L, WATCHDOG.toMillis()));
        semaphore.release(mine);
        assertThat(semaphore.takenPermits())
                .extracting(RedisSemaphore.Permit::id)
                .containsExactly(theirs);
    }

    @Test
    void whenAPermitsLeaseHasEndedThenTakenPermitsLeavesItOut() throws Exception {
        RedisSemaphore semaphore = alice.getSemaphore(name);
        semaphore.trySetPermits(1);
        assertThat(semaphore.tryAcquire(0, 200, TimeUnit.MILLISECONDS)).isNotNull();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> semaphore.takenPermits().isEmpty());
    }

    @Test
    void whenAllPermitsAreTakenThenTryAcquireGivesNullAndReleaseGivesOneBack() throws Exception {
        RedisSemaphore semaphore = alice.getSemaphore(name);
        semaphore.trySetPermits(2);
        String first = semaphore.tryAcquire(0, 30, TimeUnit.SECONDS);
        String second = bob.getSemaphore(name).tryAcquire(0, 30, TimeUnit.SECONDS);
        assertThat(first).isNotNull().isNotEqualTo(second);
        assertThat(second).isNotNull();
        assertThat(semaphore.tryAcquire(0, 30, TimeUnit.SECONDS)).isNull();
        assertThat(semaphore.tryAcquire(200, 30, TimeUnit.MILLISECONDS)).isNull();
        assertThat(semaphore.availablePermits()).isZero();
        bob.getSemaphore(name).release(first);
        assertThat(semaphore.availablePermits()).isEqualTo(1);
        semaphore.release(second);
        assertThat(semaphore.availablePermits()).isEqualTo(2);
    }

    @Test
    void whenNoPermitsWereEverSetThenNoneCanBeTaken() throws Exception {
        assertThat(alice.getSemaphore(name).tryAcquire(0, 1, TimeUnit.SECONDS)).isNull();
    }

    @Test
    void shouldNeverHaveMoreHoldersThanPermits() throws Exception {
        int permits = 3;
        alice.getSemaphore(name).trySetPermits(permits);
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            RedisSemaphore semaphore = (t % 2 == 0 ? alice : bob).getSemaphore(name);
            boolean watchdog = t % 3 == 0;
            workers.add(pool.submit(() -> {
                for (int i = 0; i < 15; i++) {
                    String permit = watchdog
                            ? semaphore.acquire(-1, TimeUnit.SECONDS)
                            : semaphore.tryAcquire(20, 30, TimeUnit.SECONDS);
                    assertThat(permit).isNotNull();
                    int now = holders.incrementAndGet();
                    most.accumulateAndGet(now, Math::max);
                    Thread.sleep(2);
                    holders.decrementAndGet();
                    semaphore.release(permit);
                    done.incrementAndGet();
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }
        assertThat(done).hasValue(8 * 15);
        assertThat(most.get()).isBetween(1, permits);
        assertThat(alice.getSemaphore(name).availablePermits()).isEqualTo(permits);
    }

    @Test
    void whenALeaseEndsThenItsPermitComesBack() throws Exception {
        RedisSemaphore semaphore = alice.getSemaphore(name);
        semaphore.trySetPermits(1);
        String permit = semaphore.tryAcquire(0, 300, TimeUnit.MILLISECONDS);
        assertThat(permit).isNotNull();
        assertThat(semaphore.availablePermits()).isZero();
        await().atMost(Duration.ofSeconds(2)).until(() -> semaphore.availablePermits() == 1);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> semaphore.release(permit))
                .withMessageContaining(name)
                .withMessageContaining(permit);
    }

    @Test
    void whenALeasedPermitExpiresThenAWaiterTakesItByItsExpiry() throws Exception {
        RedisSemaphore semaphore = alice.getSemaphore(name);
        semaphore.trySetPermits(1);
        assertThat(semaphore.tryAcquire(0, 500, TimeUnit.MILLISECONDS)).isNotNull();
        long start = System.nanoTime();
        String permit = bob.getSemaphore(name).tryAcquire(5, 30, TimeUnit.SECONDS);
        assertThat(permit).isNotNull();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2500);
    }

    @Test
    void whenAWatchdogPermitIsHeldThenItOutlivesTheWatchdogTimeoutAndComesBackAfterClose() throws Exception {
        LockClient holder = client();
        RedisSemaphore semaphore = holder.getSemaphore(name);
        semaphore.trySetPermits(1);
        String permit = semaphore.acquire(-1, TimeUnit.SECONDS);
        Thread.sleep(WATCHDOG.toMillis() * 2);
        RedisSemaphore other = bob.getSemaphore(name);
        assertThat(other.availablePermits()).isZero();
        assertThat(other.tryAcquire(0, 1, TimeUnit.SECONDS)).isNull();
        holder.close();
        long closed = System.nanoTime();
        String taken = other.tryAcquire(WATCHDOG.toMillis() + 2000, 30_000, TimeUnit.MILLISECONDS);
        assertThat(taken).isNotNull().isNotEqualTo(permit);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closed)).isLessThan(WATCHDOG.toMillis() + 2000);
    }

    @Test
    void whenAPermitIsReleasedThenAWaiterIsWokenPromptly() throws Exception {
        RedisSemaphore semaphore = alice.getSemaphore(name);
        semaphore.trySetPermits(1);
        String permit = semaphore.tryAcquire(0, 60, TimeUnit.SECONDS);
        AtomicInteger woken = new AtomicInteger();
        CompletableFuture<String> waiter = bob.getSemaphore(name)
                .tryAcquireAsync(30, 60, TimeUnit.SECONDS)
                .toCompletableFuture()
                .thenApply(id -> {
                    woken.incrementAndGet();
                    return id;
                });
        Thread.sleep(300);
        assertThat(waiter).isNotDone();
        long released = System.nanoTime();
        semaphore.release(permit);
        // Far below the waiter's 30 s wait and its holder's 60 s lease: only the release can have woken it.
        await().atMost(Duration.ofSeconds(2)).until(waiter::isDone);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released)).isLessThan(2000);
        assertThat(waiter.get()).isNotNull();
        assertThat(woken).hasValue(1);
    }

    @Test
    void shouldReleaseAsynchronouslyAndWakeSeveralWaitersForSeveralPermits() throws Exception {
        RedisSemaphore semaphore = alice.getSemaphore(name);
        semaphore.trySetPermits(2);
        String first = semaphore
                .acquireAsync(60, TimeUnit.SECONDS)
                .toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
        String second = semaphore
                .acquireAsync(60, TimeUnit.SECONDS)
                .toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
        CompletableFuture<String> one =
                bob.getSemaphore(name).acquireAsync(60, TimeUnit.SECONDS).toCompletableFuture();
        CompletableFuture<String> two =
                bob.getSemaphore(name).acquireAsync(60, TimeUnit.SECONDS).toCompletableFuture();
        Thread.sleep(200);
        assertThat(one).isNotDone();
        assertThat(two).isNotDone();
        semaphore.releaseAsync(first).toCompletableFuture().get(5, TimeUnit.SECONDS);
        semaphore.releaseAsync(second).toCompletableFuture().get(5, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(2)).until(() -> one.isDone() && two.isDone());
        assertThat(one.get()).isNotEqualTo(two.get());
    }

    @Test
    void whenAnUnknownIdIsReleasedThenTheErrorNamesTheSemaphoreAndTheId() throws Exception {
        RedisSemaphore semaphore = alice.getSemaphore(name);
        semaphore.trySetPermits(1);
        String permit = semaphore.tryAcquire(0, 30, TimeUnit.SECONDS);
        semaphore.release(permit);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> semaphore.release(permit))
                .withMessageContaining("'" + name + "'")
                .withMessageContaining("'" + permit + "'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> semaphore.release("0123456789abcdef0123456789abcdef"))
                .withMessageContaining(name)
                .withMessageContaining("0123456789abcdef0123456789abcdef");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> semaphore.release("not-a-permit"))
                .withMessageContaining(name)
                .withMessageContaining("not-a-permit");
        assertThat(semaphore.availablePermits()).isEqualTo(1);
    }

    @Test
    void whenArgumentsAreBadThenTheErrorNamesThem() {
        RedisSemaphore semaphore = alice.getSemaphore(name);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> semaphore.trySetPermits(-1))
                .withMessageContaining("'permits'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> semaphore.tryAcquire(1, 0, TimeUnit.SECONDS))
                .withMessageContaining("'leaseTime'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> semaphore.acquire(-2, TimeUnit.SECONDS))
                .withMessageContaining("'leaseTime'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> semaphore.tryAcquireAsync(1, 0, TimeUnit.SECONDS))
                .withMessageContaining("'leaseTime'");
        assertThatNullPointerException()
                .isThrownBy(() -> semaphore.release(null))
                .withMessageContaining("'permitId'");
        assertThatNullPointerException()
                .isThrownBy(() -> semaphore.tryAcquire(1, 1, null))
                .withMessageContaining("'unit'");
        assertThatNullPointerException()
                .isThrownBy(() -> alice.getSemaphore(null))
                .withMessageContaining("'name'");
    }

    @Test
    void whenAPendingAcquisitionIsCancelledThenItKeepsNoPermit() throws Exception {
        RedisSemaphore semaphore = alice.getSemaphore(name);
        semaphore.trySetPermits(1);
        String permit = semaphore.tryAcquire(0, 60, TimeUnit.SECONDS);
        CompletableFuture<String> waiter =
                bob.getSemaphore(name).acquireAsync(-1, TimeUnit.SECONDS).toCompletableFuture();
        Thread.sleep(200);
        assertThat(waiter.cancel(false)).isTrue();
        semaphore.release(permit);
        await().atMost(Duration.ofSeconds(2)).until(() -> semaphore.availablePermits() == 1);
        assertThat(semaphore.tryAcquire(0, 60, TimeUnit.SECONDS)).isNotNull();
    }

    @Test
    void whenTheClientClosesThenAWaiterFails() throws Exception {
        LockClient closing = client();
        RedisSemaphore semaphore = closing.getSemaphore(name);
        semaphore.trySetPermits(0);
        CompletableFuture<String> waiter =
                semaphore.acquireAsync(30, TimeUnit.SECONDS).toCompletableFuture();
        Thread.sleep(200);
        closing.close();
        await().atMost(Duration.ofSeconds(2)).until(waiter::isDone);
        assertThat(waiter).isCompletedExceptionally();
    }
}
