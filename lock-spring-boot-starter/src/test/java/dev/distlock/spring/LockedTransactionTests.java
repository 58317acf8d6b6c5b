package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockListener;
import dev.distlock.core.test.RedisServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A locked {@code @Transactional} method against a real H2 database: by default the lock wraps the
 * transaction, so a second caller never sees uncommitted state; with {@code distlock.aspect.order}
 * placing the lock inside the transaction, the transaction (and its database connection) is already
 * open while the lock is awaited. Either way the release waits for the commit.
 */
@DistlockRedisTest
class LockedTransactionTests {

    @Nested
    @SpringBootTest(
            classes = App.class,
            properties = {
                "spring.datasource.url=jdbc:h2:mem:distlock;DB_CLOSE_DELAY=-1",
                "distlock.defaults.wait-time=30s"
            })
    class DefaultOrder {

        @Autowired
        Counter counter;

        @Autowired
        JdbcTemplate jdbc;

        @Autowired
        LockClient client;

        @Autowired
        TransactionTemplate transactions;

        @Autowired
        TransactionAtAcquire transactionAtAcquire;

        @BeforeEach
        void setUp(RedisServer redis) {
            resetCounter(redis, jdbc, transactionAtAcquire);
        }

        @Test
        void whenLockedTransactionalMethodCommitsThenLockIsStillHeld() {
            AtomicBoolean heldAfterCommit = new AtomicBoolean();
            counter.incrementAndThen(
                    () -> heldAfterCommit.set(client.getLock("counter").isLocked()));
            assertThat(heldAfterCommit)
                    .as("the lock is held until after the commit")
                    .isTrue();
            assertThat(client.getLock("counter").isLocked()).isFalse();
        }

        @Test
        void whenDefaultOrderThenLockIsAcquiredBeforeTheTransactionBegins() {
            counter.incrementAndThen(() -> {});
            assertThat(transactionAtAcquire.get("counter"))
                    .as("a transaction was active when the lock was acquired")
                    .isFalse();
        }

        @Test
        void whenCallersRunConcurrentlyThenNoneSeesUncommittedState() throws Exception {
            ExecutorService pool = Executors.newFixedThreadPool(3);
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    futures.add(pool.submit(() -> counter.incrementAndThen(() -> {})));
                }
                for (Future<?> future : futures) {
                    future.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(jdbc.queryForObject("select val from counter where id = 1", Integer.class))
                    .isEqualTo(6);
        }

        @Test
        void whenMethodJoinsAnOuterTransactionThenReleaseWaitsForItsEnd() {
            Boolean heldInsideOuter = transactions.execute(status -> {
                counter.joined();
                return client.getLock("joined").isLocked();
            });
            assertThat(heldInsideOuter).isTrue();
            assertThat(client.getLock("joined").isLocked()).isFalse();
        }
    }

    @Nested
    @SpringBootTest(
            classes = InsideApp.class,
            properties = {
                "spring.datasource.url=jdbc:h2:mem:distlock-inside;DB_CLOSE_DELAY=-1",
                "distlock.defaults.wait-time=30s",
                "distlock.aspect.order=100"
            })
    class LockOrderedInsideTheTransaction {

        @Autowired
        Counter counter;

        @Autowired
        JdbcTemplate jdbc;

        @Autowired
        LockClient client;

        @Autowired
        TransactionAtAcquire transactionAtAcquire;

        @Autowired
        TransactionTemplate transactions;

        @BeforeEach
        void setUp(RedisServer redis) {
            resetCounter(redis, jdbc, transactionAtAcquire);
        }

        @Test
        void whenLockIsOrderedInsideTheTransactionThenItIsAcquiredWithTheTransactionOpen() {
            counter.incrementAndThen(() -> {});
            assertThat(transactionAtAcquire.get("counter"))
                    .as("a transaction was active when the lock was acquired")
                    .isTrue();
            assertThat(jdbc.queryForObject("select val from counter where id = 1", Integer.class))
                    .isEqualTo(1);
        }

        @Test
        void whenLockIsOrderedInsideTheTransactionThenReleaseStillWaitsForTheCommit() {
            AtomicBoolean heldAfterCommit = new AtomicBoolean();
            counter.incrementAndThen(
                    () -> heldAfterCommit.set(client.getLock("counter").isLocked()));
            assertThat(heldAfterCommit)
                    .as("the release is deferred to the end of the transaction")
                    .isTrue();
            assertThat(client.getLock("counter").isLocked()).isFalse();
        }

        @Test
        void whenARequiresNewMethodIsLockedInsideItsOwnTransactionThenTheReleaseWaitsForItsOwnCommitOnly() {
            AtomicBoolean heldAtItsCommit = new AtomicBoolean();
            Boolean heldInsideOuter = transactions.execute(status -> {
                counter.ownTransactionAndThen(
                        () -> heldAtItsCommit.set(client.getLock("own").isLocked()));
                return client.getLock("own").isLocked();
            });
            assertThat(heldAtItsCommit).as("held until its own commit").isTrue();
            assertThat(heldInsideOuter)
                    .as("released before the caller's transaction ends")
                    .isFalse();
        }
    }

    private static void resetCounter(RedisServer redis, JdbcTemplate jdbc, TransactionAtAcquire transactionAtAcquire) {
        redis.command("FLUSHALL");
        jdbc.execute("create table if not exists counter (id int primary key, val int)");
        jdbc.update("delete from counter");
        jdbc.update("insert into counter values (1, 0)");
        transactionAtAcquire.clear();
    }

    /** Read-modify-write with a pause that lets a racing caller in if the lock did not cover the commit. */
    static class Counter {

        private final JdbcTemplate jdbc;

        Counter(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @DistributedLock(name = "counter")
        @Transactional
        public void incrementAndThen(Runnable afterCommit) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    afterCommit.run();
                }
            });
            int value = jdbc.queryForObject("select val from counter where id = 1", Integer.class);
            try {
                // Simulated work inside the locked section: the window a racing caller would use.
                Thread.sleep(30);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            jdbc.update("update counter set val = ? where id = 1", value + 1);
        }

        @DistributedLock(name = "own")
        @Transactional(propagation = Propagation.REQUIRES_NEW)
        public void ownTransactionAndThen(Runnable afterCommit) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    afterCommit.run();
                }
            });
            jdbc.update("update counter set val = val + 1 where id = 1");
        }

        @DistributedLock(name = "joined")
        public void joined() {
            jdbc.update("update counter set val = val + 1 where id = 1");
        }
    }

    /** Records, per lock name, whether a transaction was active on the thread that acquired it. */
    static class TransactionAtAcquire implements LockListener {

        private final Map<String, Boolean> seen = new ConcurrentHashMap<>();

        @Override
        public void onAcquired(String lockName, long ownerId, long waitNanos) {
            seen.put(lockName, TransactionSynchronizationManager.isActualTransactionActive());
        }

        Boolean get(String lockName) {
            return seen.get(lockName);
        }

        void clear() {
            seen.clear();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        Counter counter(JdbcTemplate jdbc) {
            return new Counter(jdbc);
        }

        @Bean
        TransactionAtAcquire transactionAtAcquire() {
            return new TransactionAtAcquire();
        }

        @Bean
        TransactionTemplate transactionTemplate(PlatformTransactionManager manager) {
            return new TransactionTemplate(manager);
        }
    }

    /** Transactions advise first (order 0), so the lock advisor at order 100 runs inside them. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableTransactionManagement(order = 0)
    static class InsideApp {

        @Bean
        Counter counter(JdbcTemplate jdbc) {
            return new Counter(jdbc);
        }

        @Bean
        TransactionAtAcquire transactionAtAcquire() {
            return new TransactionAtAcquire();
        }

        @Bean
        TransactionTemplate transactionTemplate(PlatformTransactionManager manager) {
            return new TransactionTemplate(manager);
        }
    }
}
