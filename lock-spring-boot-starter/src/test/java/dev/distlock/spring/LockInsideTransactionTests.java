package dev.distlock.spring;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockListener;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.TransactionOrderingTests.Counter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code distlock.aspect.order} placing the lock advisor inside {@code @Transactional}: the
 * transaction (and its database connection) is already open while the lock is awaited, which the
 * default order avoids ({@link TransactionOrderingTests}). The release still waits for the commit.
 */
@SpringBootTest(classes = LockInsideTransactionTests.App.class,
        properties = { "spring.datasource.url=jdbc:h2:mem:distlock-inside;DB_CLOSE_DELAY=-1",
                "distlock.defaults.wait-time=30s", "distlock.aspect.order=100" })
class LockInsideTransactionTests {

    static final RedisServer redis = RedisServers.shared();

    @org.springframework.test.context.DynamicPropertySource
    static void redisProperties(org.springframework.test.context.DynamicPropertyRegistry registry) {
        registry.add("distlock.redis.url", redis::uri);
    }

    @Autowired
    Counter counter;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    LockClient client;

    @Autowired
    TransactionAtAcquire transactionAtAcquire;

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
        jdbc.execute("create table if not exists counter (id int primary key, val int)");
        jdbc.update("delete from counter");
        jdbc.update("insert into counter values (1, 0)");
        transactionAtAcquire.clear();
    }

    @Test
    void whenLockIsOrderedInsideTheTransactionThenItIsAcquiredWithTheTransactionOpen() {
        counter.incrementAndThen(() -> { });
        assertThat(transactionAtAcquire.get("counter")).as("a transaction was active when the lock was acquired").isTrue();
        assertThat(jdbc.queryForObject("select val from counter where id = 1", Integer.class)).isEqualTo(1);
    }

    @Test
    void whenLockIsOrderedInsideTheTransactionThenReleaseStillWaitsForTheCommit() {
        AtomicBoolean heldAfterCommit = new AtomicBoolean();
        counter.incrementAndThen(() -> heldAfterCommit.set(client.getLock("counter").isLocked()));
        assertThat(heldAfterCommit).as("the release is deferred to the end of the transaction").isTrue();
        assertThat(client.getLock("counter").isLocked()).isFalse();
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
    @EnableTransactionManagement(order = 0)
    static class App {

        @Bean
        Counter counter(JdbcTemplate jdbc) {
            return new Counter(jdbc);
        }

        @Bean
        TransactionAtAcquire transactionAtAcquire() {
            return new TransactionAtAcquire();
        }
    }
}
