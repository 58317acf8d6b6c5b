package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** {@link DistlockTestRedis} without a Spring context: the server, as a parameter, flushed before each test. */
@DistlockTestRedis(flushBeforeEach = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DistlockTestRedisPlainTests {

    private final TestRedis redis;

    DistlockTestRedisPlainTests(TestRedis redis) {
        this.redis = redis;
    }

    @Test
    @Order(1)
    void whenAKeyIsWrittenThenTheServerKeepsIt() {
        assertThat(redis.command("SET", "left-over", "1")).isEqualTo("OK");
        assertThat(redis.command("GET", "left-over")).isEqualTo("1");
        assertThat(redis.command("GET", "missing")).isNull();
    }

    @Test
    @Order(2)
    void whenTheNextTestStartsThenThePreviousKeysAreGone(TestRedis parameter) {
        assertThat(parameter).isSameAs(redis).isSameAs(TestRedis.shared());
        assertThat(redis.command("DBSIZE")).isEqualTo("0");
    }

    @Test
    void whenAskedThenTheServerTellsItsAddressAndVersion() {
        assertThat(redis.host()).isEqualTo("127.0.0.1");
        assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
        assertThat(redis.version()).matches("\\d+\\.\\d+\\.\\d+");
        assertThat(redis.command("RPUSH", "list", "a", "b")).isEqualTo("2");
        assertThat(redis.command("LRANGE", "list", "0", "-1")).isEqualTo("a\nb");
    }

    @Test
    void whenTheServerIsValkeyThenItsOwnVersionIsReportedNotTheRedisVersionItIsCompatibleWith() {
        String info = redis.command("INFO", "server");
        boolean valkey = info.contains("server_name:valkey");
        String field = valkey ? "valkey_version:" : "redis_version:";
        String expected = info.lines()
                .filter(line -> line.startsWith(field))
                .map(line -> line.substring(field.length()).trim())
                .findFirst()
                .orElseThrow();
        assertThat(redis.version()).isEqualTo(expected);
        assertThat(redis.product()).isEqualTo(valkey ? "Valkey" : "Redis");
    }

    @Test
    void whenACommandFailsThenTheErrorSaysWhy() {
        assertThatIllegalStateException()
                .isThrownBy(() -> redis.command("NO-SUCH-COMMAND"))
                .withMessageContaining("unknown command");
    }
}
