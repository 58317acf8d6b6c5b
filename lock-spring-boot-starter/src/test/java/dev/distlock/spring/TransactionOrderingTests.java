package dev.distlock.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;

import static org.assertj.core.api.Assertions.assertThat;

/** The lock wraps the transaction: a second caller never sees uncommitted state. Uses a real H2 database. */
@SpringBootTest(classes = TransactionOrderingTests.App.class,
        properties = { "spring.datasource.url=jdbc:h2:mem:distlock;DB_CLOSE_DELAY=-1", "distlock.defaults.wait-time=30s" })
class TransactionOrderingTests {

    static final RedisServer redis = RedisServers.shared();

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry registry) {
        registry.add("distlock.redis.url", redis::uri);
    }

    @Autowired
    Counter counter;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    LockClient client;

    @Autowired
    TransactionTemplate transactions;

    @Autowired
    LockInsideTransactionTests.TransactionAtAcquire transactionAtAcquire;

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
        jdbc.execute("create table if not exists counter (id int primary key, val int)");
        jdbc.update("delete from counter");
        jdbc.update("insert into counter values (1, 0)");
    }

    @Test
    void whenLockedTransactionalMethodCommitsThenLockIsStillHeld() {
        AtomicBoolean heldAfterCommit = new AtomicBoolean();
        counter.incrementAndThen(() -> heldAfterCommit.set(client.getLock("counter").isLocked()));
        assertThat(heldAfterCommit).as("the lock is held until after the commit").isTrue();
        assertThat(client.getLock("counter").isLocked()).isFalse();
    }

    @Test
    void whenDefaultOrderThenLockIsAcquiredBeforeTheTransactionBegins() {
        counter.incrementAndThen(() -> { });
        assertThat(transactionAtAcquire.get("counter")).as("a transaction was active when the lock was acquired").isFalse();
    }

    @Test
    void concurrentCallersNeverSeeUncommittedState() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                futures.add(pool.submit(() -> counter.incrementAndThen(() -> { })));
            }
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(jdbc.queryForObject("select val from counter where id = 1", Integer.class)).isEqualTo(6);
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
                Thread.sleep(30);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            jdbc.update("update counter set val = ? where id = 1", value + 1);
        }

        @DistributedLock(name = "joined")
        public void joined() {
            jdbc.update("update counter set val = val + 1 where id = 1");
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
        LockInsideTransactionTests.TransactionAtAcquire transactionAtAcquire() {
            return new LockInsideTransactionTests.TransactionAtAcquire();
        }

        @Bean
        TransactionTemplate transactionTemplate(org.springframework.transaction.PlatformTransactionManager manager) {
            return new TransactionTemplate(manager);
        }
    }
}
