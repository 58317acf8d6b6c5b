package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisReadWriteLock;
import dev.distlock.core.test.RedisServer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The endpoint with write access granted: force-unlock is {@code DELETE}, uses each kind's own
 * release (fair and read-write waiters are woken), and neither shows nor deletes keys that are not
 * locks.
 */
@DistlockRedisTest
@SpringBootTest(
        classes = TestApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=distlock",
            "management.endpoint.distlock.access=unrestricted",
            "test.lock.name=named",
            "test.lock.region=eu-"
        })
class EndpointWriteAccessTests {

    @LocalServerPort
    int port;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private LockClient holder;
    private LockClient waiter;

    @BeforeEach
    void clients(RedisServer redis) {
        holder = LockClient.create(redis.uri());
        waiter = LockClient.create(redis.uri());
    }

    @AfterEach
    void close() {
        holder.close();
        waiter.close();
    }

    private HttpResponse<String> send(String method, String name) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/distlock/" + name))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> sendByQuery(String method, String name) throws Exception {
        String query = "?name=" + URLEncoder.encode(name, StandardCharsets.UTF_8);
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/distlock" + query))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void whenALockNameHasASlashThenTheNameParameterReadsAndForceUnlocksIt() throws Exception {
        String name = "export:/reports/2026-11.csv";
        RedisLock lock = holder.getLock(name);
        assertThat(lock.tryLock(0, 60, TimeUnit.SECONDS)).isTrue();
        HttpResponse<String> read = sendByQuery("GET", name);
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body())
                .contains("\"name\":\"export:/reports/2026-11.csv\"")
                .contains("\"locked\":true");
        HttpResponse<String> delete = sendByQuery("DELETE", name);
        assertThat(delete.statusCode()).isEqualTo(200);
        assertThat(delete.body()).contains("\"unlocked\":true");
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void whenWriteAccessIsGrantedThenDeleteForceUnlocksAnotherInstancesLock() throws Exception {
        RedisLock lock = holder.getLock("ep-held");
        assertThat(lock.tryLock(0, 60, TimeUnit.SECONDS)).isTrue();
        HttpResponse<String> response = send("DELETE", "ep-held");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"unlocked\":true");
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void whenTheNameHoldsAnUnrelatedHashStringOrListThenItIsNeitherShownAsALockNorDeleted(RedisServer redis)
            throws Exception {
        redis.command("HSET", "ep-hash", "name", "bob", "age", "42");
        redis.command("HSET", "ep-counters", "hits", "5");
        redis.command("SET", "ep-string", "value");
        redis.command("RPUSH", "ep-list", "a", "b");
        for (String name : new String[] {"ep-hash", "ep-counters", "ep-string", "ep-list"}) {
            HttpResponse<String> read = send("GET", name);
            assertThat(read.statusCode()).as(name).isEqualTo(200);
            assertThat(read.body())
                    .as(name)
                    .contains("\"state\":\"not-a-lock\"")
                    .contains("\"holders\":{}")
                    .doesNotContain("\"locked\":true");
            HttpResponse<String> delete = send("DELETE", name);
            assertThat(delete.statusCode()).as(name).isEqualTo(200);
            assertThat(delete.body()).as(name).contains("\"unlocked\":false").contains("not a lock");
            assertThat(redis.command("EXISTS", name)).as(name).isEqualTo("1");
        }
        assertThat(redis.command("HGET", "ep-hash", "age")).isEqualTo("42");
        assertThat(redis.command("GET", "ep-string")).isEqualTo("value");
        assertThat(redis.command("LLEN", "ep-list")).isEqualTo("2");
    }

    @Test
    void whenAFairLockHasAQueuedWaiterThenForceUnlockWakesIt() throws Exception {
        RedisLock held = holder.getFairLock("ep-fair");
        assertThat(held.tryLock(0, 60, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Boolean> acquired = CompletableFuture.supplyAsync(() -> {
            RedisLock lock = waiter.getFairLock("ep-fair");
            try {
                return lock.tryLock(30, 60, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        await().atMost(Duration.ofSeconds(10))
                .until(() -> holder.inspect("ep-fair").queueLength() == 1);
        assertThat(send("GET", "ep-fair").body()).contains("\"kind\":\"fair\"");
        assertThat(send("DELETE", "ep-fair").body()).contains("\"unlocked\":true");
        // The holder's lease has 60 s left: the waiter gets in only because the lock was released.
        assertThat(acquired.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void whenAWriterHoldsAndAReaderWaitsThenForceUnlockWakesTheReader() throws Exception {
        RedisReadWriteLock rw = holder.getReadWriteLock("ep-rw");
        assertThat(rw.writeLock().tryLock(0, 60, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Boolean> acquired = CompletableFuture.supplyAsync(() -> {
            try {
                return waiter.getReadWriteLock("ep-rw").readLock().tryLock(30, 60, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        assertThat(send("GET", "ep-rw").body())
                .contains("\"kind\":\"read-write\"")
                .contains("\"mode\":\"write\"");
        // Let the reader reach its wait (its first attempt is refused while the writer holds).
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !acquired.isDone());
        assertThat(send("DELETE", "ep-rw").body()).contains("\"unlocked\":true");
        assertThat(acquired.get(10, TimeUnit.SECONDS)).isTrue();
    }
}
