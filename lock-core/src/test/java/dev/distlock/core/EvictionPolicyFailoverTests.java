package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.distlock.core.internal.connection.EvictionPolicies;
import dev.distlock.core.test.RedisSentinelGroup;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * After a Sentinel failover the client reads the new master's eviction policy: the list names the
 * new master only, and a policy there that may evict lock keys is warned about.
 */
@Tag("fault")
class EvictionPolicyFailoverTests {

    @Test
    void whenTheMasterFailsOverToAReplicaThatMayEvictThenTheNewMasterIsListedAndWarned() {
        Logger logger = (Logger) LoggerFactory.getLogger(EvictionPolicies.class);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        try (RedisSentinelGroup group = RedisSentinelGroup.start();
                LockClient client = LockClient.create(LockClientOptions.builder()
                        .sentinel(RedisSentinelGroup.MASTER_ID, group.sentinelUris())
                        .build())) {
            group.replica().command("CONFIG", "SET", "maxmemory-policy", "volatile-ttl");
            client.ping();
            String master = "127.0.0.1:" + group.master().port();
            String replica = "127.0.0.1:" + group.replica().port();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(client.evictionPolicies())
                    .containsExactly(new EvictionPolicy(master, "noeviction")));
            assertThat(log.list).noneMatch(event -> event.getLevel() == Level.WARN);

            group.master().stop();

            await().atMost(Duration.ofSeconds(40))
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> {
                        try {
                            client.ping();
                        } catch (LockException stillFailingOver) {
                            // the client reconnects by itself once the replica is promoted
                        }
                        assertThat(client.evictionPolicies())
                                .containsExactly(new EvictionPolicy(replica, "volatile-ttl"));
                    });
            assertThat(log.list)
                    .filteredOn(event -> event.getLevel() == Level.WARN)
                    .singleElement()
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .asString()
                    .contains(replica, "volatile-ttl", "every lock key has one");
        } finally {
            logger.detachAppender(log);
        }
    }
}
