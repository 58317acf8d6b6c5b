package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Where a locked method's transaction ends, against a real H2 database: a method that joins the
 * caller's transaction keeps its lock until that transaction ends, and a lease that ran out meanwhile
 * fails the commit under {@code lease-lost-policy=throw}; a {@code REQUIRES_NEW} method, which commits
 * on its own, releases at its own commit, not at the end of the caller's transaction.
 */
@DistlockRedisTest
@SpringBootTest(
        classes = LockedTransactionBoundaryTests.App.class,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:distlock-boundary;DB_CLOSE_DELAY=-1",
            "distlock.defaults.wait-time=0",
            "distlock.lease-lost-policy=throw"
        })
class LockedTransactionBoundaryTests {

    @Autowired
    Items items;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    LockClient client;

    @Autowired
    TransactionTemplate transactions;

    @BeforeEach
    void setUp(RedisServer redis) {
        redis.command("FLUSHALL");
        jdbc.execute("create table if not exists item (id int primary key, val int)");
        jdbc.update("delete from item");
        jdbc.update("insert into item values (1, 0)");
    }

    @Test
    void whenAJoinedMethodOutlivesItsLeaseUnderThrowThenTheCallersCommitFailsAndRollsBack() {
        assertThatExceptionOfType(LockLeaseExpiredException.class)
                .isThrownBy(() -> transactions.executeWithoutResult(status -> items.updateBeyondLease()))
                .withMessageContaining("'tx-lease'");
        assertThat(value()).as("the update rolled back").isZero();
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void whenARequiresNewMethodCommitsThenItsLockIsReleasedBeforeTheCallersTransactionEnds() {
        Boolean heldAfterItsCommit = transactions.execute(status -> {
            items.updateOnItsOwn();
            return client.getLock("tx-own").isLocked();
        });
        assertThat(heldAfterItsCommit)
                .as("held after the method's own commit, inside the caller's transaction")
                .isFalse();
        assertThat(value()).isEqualTo(1);
    }

    @Test
    void whenARequiresNewMethodCommitsOutsideAnyTransactionThenItsLockIsReleased() {
        items.updateOnItsOwn();
        assertThat(client.getLock("tx-own").isLocked()).isFalse();
        assertThat(value()).isEqualTo(1);
    }

    private int value() {
        return jdbc.queryForObject("select val from item where id = 1", Integer.class);
    }

    static class Items {

        private final JdbcTemplate jdbc;

        Items(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        /** Joins the caller's transaction and runs until its explicit lease has run out. */
        @DistributedLock(name = "tx-lease", leaseTime = "1s")
        public void updateBeyondLease() {
            jdbc.update("update item set val = val + 1 where id = 1");
            await().pollInSameThread().atMost(Duration.ofSeconds(10)).until(() -> !LockContext.current()
                    .isHeld());
        }

        @DistributedLock(name = "tx-own")
        @Transactional(propagation = Propagation.REQUIRES_NEW)
        public void updateOnItsOwn() {
            jdbc.update("update item set val = val + 1 where id = 1");
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        Items items(JdbcTemplate jdbc) {
            return new Items(jdbc);
        }

        @Bean
        TransactionTemplate transactionTemplate(PlatformTransactionManager manager) {
            return new TransactionTemplate(manager);
        }
    }
}
