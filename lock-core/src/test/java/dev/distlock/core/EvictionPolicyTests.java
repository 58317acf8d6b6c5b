package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.distlock.core.internal.connection.EvictionPolicies;
import dev.distlock.core.test.RedisCluster;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A client reads each server's {@code maxmemory-policy} from {@code INFO memory} when it connects,
 * lists it in {@link LockClient#evictionPolicies()} and warns once per server and policy when the
 * policy may evict lock keys; a restart with another policy is read and warned about again.
 */
class EvictionPolicyTests {

    private final List<AutoCloseable> closeLast = new ArrayList<>();
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(EvictionPolicies.class);
    private long ownInfoCalls;

    @BeforeEach
    void captureLog() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void stopAll() throws Exception {
        logger.detachAppender(log);
        for (int i = closeLast.size() - 1; i >= 0; i--) {
            closeLast.get(i).close();
        }
    }

    @Test
    void whenThePolicyMayEvictLocksThenOneWarningNamesItWhyAndTheFix() {
        RedisServer redis = server("--maxmemory", "2mb", "--maxmemory-policy", "allkeys-lru");
        LockClient client = client(redis);

        client.ping();

        String server = "127.0.0.1:" + redis.port();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(client.evictionPolicies())
                .containsExactly(new EvictionPolicy(server, "allkeys-lru")));
        assertThat(client.evictionPolicies().get(0).mayEvictLocks()).isTrue();
        assertThat(warnings()).singleElement().satisfies(message -> assertThat(message)
                .contains(server, "maxmemory-policy allkeys-lru", "2.00M", "evict lock keys")
                .contains("Set maxmemory-policy noeviction", "a Redis of their own"));

        // Lock calls read nothing more; a reconnect to the same server with the same policy reads
        // it again but does not warn again.
        long infosBefore = infoCalls(redis);
        RedisLock lock = client.getLock("eviction-" + System.nanoTime());
        for (int i = 0; i < 20; i++) {
            lock.lock();
            lock.unlock();
        }
        assertThat(infoCalls(redis)).isEqualTo(infosBefore);
        redis.command("CLIENT", "KILL", "TYPE", "normal");
        // A ping written before the client has seen the kill fails as in flight: try again.
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().untilAsserted(() -> {
            client.ping();
            assertThat(infoCalls(redis)).isGreaterThan(infosBefore);
        });
        assertThat(warnings()).hasSize(1);
    }

    @Test
    void whenThePolicyIsNoevictionThenNothingIsWarned() {
        RedisServer redis = server("--maxmemory", "2mb", "--maxmemory-policy", "noeviction");
        LockClient client = client(redis);

        client.ping();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(client.evictionPolicies())
                .containsExactly(new EvictionPolicy("127.0.0.1:" + redis.port(), "noeviction")));
        assertThat(client.evictionPolicies().get(0).mayEvictLocks()).isFalse();
        assertThat(log.list).noneMatch(event -> event.getLevel().isGreaterOrEqual(Level.INFO));
    }

    @Test
    void whenTheServerRestartsWithAnotherPolicyThenTheReconnectWarnsAgain() {
        RedisServer first = server("--maxmemory", "2mb", "--maxmemory-policy", "allkeys-lru");
        int port = first.port();
        LockClient client = LockClient.create(LockClientOptions.builder()
                .uri(first.uri())
                .reconnectDelay(Duration.ofMillis(50), Duration.ofMillis(200))
                .build());
        closeLast.add(client);
        client.ping();
        await().atMost(Duration.ofSeconds(10)).until(() -> warnings().size() == 1);

        first.stop();
        RedisServer restarted =
                RedisServers.startOnPort(port, "--maxmemory", "2mb", "--maxmemory-policy", "volatile-lru");
        closeLast.add(restarted);

        String server = "127.0.0.1:" + port;
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            assertThat(client.evictionPolicies()).containsExactly(new EvictionPolicy(server, "volatile-lru"));
            assertThat(warnings()).hasSize(2);
        });
        assertThat(warnings().get(1))
                .contains(server, "maxmemory-policy volatile-lru", "every lock key has one", "noeviction");
    }

    @Test
    void whenInfoIsRefusedThenThePolicyIsUnknownAndSaidOnce() {
        RedisServer redis = server();
        redis.command("ACL", "SETUSER", "locks", "on", ">secret", "~*", "&*", "+@all", "-info");
        LockClient client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .credentials("locks", "secret")
                .build());
        closeLast.add(client);

        client.ping();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(client.evictionPolicies())
                .containsExactly(new EvictionPolicy("127.0.0.1:" + redis.port(), EvictionPolicy.UNKNOWN)));
        assertThat(client.evictionPolicies().get(0).known()).isFalse();
        assertThat(client.evictionPolicies().get(0).mayEvictLocks()).isTrue();
        assertThat(log.list)
                .filteredOn(event -> event.getLevel() == Level.INFO)
                .singleElement()
                .extracting(ILoggingEvent::getFormattedMessage)
                .asString()
                .contains("Cannot read the maxmemory-policy", "noeviction");
        assertThat(warnings()).isEmpty();
    }

    @Test
    void whenAClusterMasterMayEvictThenEveryMasterIsListedAndOnlyThatOneWarned() {
        RedisCluster cluster = RedisCluster.start(3);
        closeLast.add(cluster);
        RedisServer evicting = cluster.masters().get(1);
        evicting.command("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu");
        LockClient client = LockClient.create(
                LockClientOptions.builder().cluster(cluster.uris()).build());
        closeLast.add(client);

        client.ping();

        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(client.evictionPolicies())
                .hasSize(3)
                .filteredOn(EvictionPolicy::mayEvictLocks)
                .containsExactly(new EvictionPolicy("127.0.0.1:" + evicting.port(), "allkeys-lfu")));
        assertThat(warnings()).singleElement().asString().contains("127.0.0.1:" + evicting.port(), "allkeys-lfu");
    }

    /**
     * The hazard the warning is about, as docs/failure-modes.md describes it: under {@code allkeys-lru}
     * held lock keys are evicted while other keys are written, and another client takes those locks
     * while their holder still believes it holds them (it hears of it at its next renewal).
     */
    @Test
    void whenMemoryRunsOutUnderAllkeysLruThenHeldLocksAreEvictedAndTakenByAnotherClient() throws Exception {
        RedisServer redis = server("--maxmemory", "2mb", "--maxmemory-policy", "allkeys-lru");
        LockClient holder = client(redis);
        LockClient other = client(redis);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String name = "evictable-" + i;
            names.add(name);
            assertThat(holder.getLock(name).tryLock(0, -1, java.util.concurrent.TimeUnit.SECONDS))
                    .isTrue();
        }

        String value = "x".repeat(10_000);
        for (int i = 0; i < 400; i++) {
            redis.command("SET", "cache-" + i, value);
        }

        long taken = names.stream()
                .filter(name -> {
                    try {
                        return other.getLock(name).tryLock(0, 30, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                })
                .count();
        assertThat(taken).as("locks taken by another client after eviction").isPositive();
        assertThat(holder.heldLocks())
                .as("holds the first client still believes it has")
                .hasSize(20);
        // Once per client: each client is told of the servers it connects to.
        assertThat(warnings()).hasSize(2).allMatch(warning -> warning.contains("allkeys-lru"));
    }

    private List<String> warnings() {
        return log.list.stream()
                .filter(event -> event.getLevel() == Level.WARN)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    /** The INFO commands the server ran for others than this method, which sends one each time. */
    private long infoCalls(RedisServer redis) {
        long calls = 0;
        for (String line : redis.command("INFO", "commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_info:calls=")) {
                calls = Long.parseLong(line.substring("cmdstat_info:calls=".length(), line.indexOf(',')));
            }
        }
        // A reply counts the earlier calls, not itself.
        return calls - ownInfoCalls++;
    }

    private RedisServer server(String... args) {
        RedisServer redis = RedisServers.start(args);
        closeLast.add(redis);
        return redis;
    }

    private LockClient client(RedisServer redis) {
        LockClient client = LockClient.create(redis.uri());
        closeLast.add(client);
        return client;
    }
}
